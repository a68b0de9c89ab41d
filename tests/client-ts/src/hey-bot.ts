// A bot over the client hey-api generates from openapi/openapi.json
// (`npm run generate` writes it to src/hey/). Such a client sends its token only
// to operations that declare security: `GET /matches/{id}` declares it optional
// (anonymous, or a token), so the bot reading its own match is shown its seat
// and its legal moves; without a token the same read is a spectator's.
//
//   npm run build && node dist/hey-bot.js http://127.0.0.1:8080
import { createClient, createConfig } from "./hey/client/index.js";
import { createMatch, createPlayer, createToken, getMatch } from "./hey/sdk.gen.js";

function fail(why: string): never {
  throw new Error(`hey-api bot: ${why}`);
}

const base = process.argv[2] ?? "http://127.0.0.1:8080";
const anonymous = createClient(createConfig({ baseUrl: base }));
const name = `hey-${Math.random().toString(36).slice(2, 10)}`;
const password = "correct horse";
const made = await createPlayer({ client: anonymous, body: { name, password } });
if (made.error) fail(`register: ${JSON.stringify(made.error)}`);
const issued = await createToken({ client: anonymous, body: { name, password } });
if (!issued.data) fail(`log in: ${JSON.stringify(issued.error)}`);
const token = issued.data.access_token;
const bot = createClient(createConfig({ baseUrl: base, auth: () => token }));

// The bot takes seat 0 against the server's random bot; Heretics opens with
// a sealed choice for every seat, so seat 0 owes a move at once.
const created = await createMatch({
  client: bot,
  body: { game: "heretics", seats: 2, bots: ["random"] },
});
if (!created.data) fail(`create: ${JSON.stringify(created.error)}`);
const id = created.data.id;

const mine = await getMatch({ client: bot, path: { id } });
if (!mine.data) fail(`read: ${JSON.stringify(mine.error)}`);
if (mine.data.your_seat !== 0) fail(`read its own match as seat ${mine.data.your_seat}, not 0`);
const legal = mine.data.prompt?.legal;
if (!mine.data.prompt?.your_turn || !Array.isArray(legal) || legal.length === 0) {
  fail(`no legal moves in its prompt: ${JSON.stringify(mine.data.prompt)}`);
}

// The same read without a token is a spectator's: no seat, no legal moves.
const theirs = await getMatch({ client: anonymous, path: { id } });
if (!theirs.data) fail(`anonymous read: ${JSON.stringify(theirs.error)}`);
if (theirs.data.your_seat !== null || theirs.data.prompt?.legal != null) {
  fail("an anonymous read was shown a seat");
}
console.log(`hey-api bot: read its own match as seat 0 with ${legal.length} legal moves`);
