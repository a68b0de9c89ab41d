// A bot written only against the types generated from openapi/openapi.json
// (`npm run generate`): for each game it creates a match against the server's
// random bots, reads its prompt, fills in one of its legal moves and submits it,
// until the match is over.
//
//   npm ci && npm run generate && npm run check      # type-check (tsc --strict)
//   npm run build && npm run bot -- http://127.0.0.1:8080
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
type Match = Schemas["MatchResponse"];
type GameId = Schemas["GameId"];

/** One value of a plural list. */
function pick<T>(items: readonly T[]): T {
  const item = items[Math.floor(Math.random() * items.length)];
  if (item === undefined) throw new Error("an empty list of choices");
  return item;
}

/** One integer of a `{min,max}` range. */
function within(range: Schemas["IntRange"]): number {
  return range.min + Math.floor(Math.random() * (range.max - range.min + 1));
}

/** A subset of a `{subset_of,min,max}` choice: distinct items, in a random order. */
function subset(choice: Schemas["Subset"]): string[] {
  const pool = [...choice.subset_of].sort(() => Math.random() - 0.5);
  const max = Math.min(choice.max, pool.length);
  const count = choice.min + Math.floor(Math.random() * (max - choice.min + 1));
  return pool.slice(0, count);
}

function malaccaMove(entry: Schemas["MalaccaLegalMove"]): Schemas["MalaccaAction"] {
  if (!("template" in entry)) return entry;
  return { type: "play", card: pick(entry.cards), stake: within(entry.stake) };
}

function hereticsMove(entry: Schemas["HereticsLegalMove"]): Schemas["HereticsAction"] {
  // Heretics lists complete actions only.
  return entry;
}

function kontorMove(entry: Schemas["KontorLegalMove"]): Schemas["KontorAction"] {
  if (!("template" in entry)) return entry;
  return {
    type: "place",
    cell: pick(entry.cells),
    as: entry.as ?? null,
    ship_to: entry.ship_tos ? pick(entry.ship_tos) : null,
    remove: entry.remove ?? null,
    recipient_seat: entry.recipient_seat ?? null,
  };
}

function cairoMove(entry: Schemas["CairoLegalMove"]): Schemas["CairoAction"] {
  if (!("template" in entry)) return entry;
  switch (entry.type) {
    case "roll":
      return { type: "roll", value: within(entry.value) };
    case "choose_material":
      return { type: "choose_material", material: pick(entry.materials), finger: pick(entry.fingers) };
    case "aim":
      return { type: "aim", parcel: pick(entry.parcels) };
    case "report":
      return {
        type: "report",
        landing: pick(entry.landings),
        face: entry.face ? within(entry.face) : null,
        boat_knocked_over: pick(entry.boat_knocked_overs),
      };
    case "displace":
      return {
        type: "displace",
        owner: entry.owner,
        stone: entry.stone,
        from: entry.from,
        to: pick(entry.tos),
        face: entry.face ? within(entry.face) : null,
      };
    case "topple":
      return { type: "topple", pyramid_id: pick(entry.pyramid_ids) };
    case "build":
      return { type: "build", parcel: entry.parcel, size: entry.size, cubes: subset(entry.cubes) };
    case "retrieve":
      return { type: "retrieve", stones: subset(entry.stones) };
    case "order_tie":
      return { type: "order_tie", parcel: entry.parcel, group: subset(entry.group) };
  }
}

/** The move to make, if the caller owes one: the match's `game` narrows its prompt. */
function decide(m: Match): Schemas["GameAction"] | null {
  switch (m.game) {
    case "malacca":
      return m.prompt?.legal ? malaccaMove(pick(m.prompt.legal)) : null;
    case "heretics":
      return m.prompt?.legal ? hereticsMove(pick(m.prompt.legal)) : null;
    case "kontor":
      return m.prompt?.legal ? kontorMove(pick(m.prompt.legal)) : null;
    case "cairo":
      return m.prompt?.legal ? cairoMove(pick(m.prompt.legal)) : null;
  }
}

async function play(base: string, game: GameId, seats: number): Promise<number> {
  const anonymous = createClient<paths>({ baseUrl: base });
  const name = `ts-${game}-${Math.random().toString(36).slice(2, 10)}`;
  const password = "correct horse";
  const made = await anonymous.POST("/api/v1/players", { body: { name, password } });
  if (made.error) throw new Error(`register: ${made.error.detail}`);
  const token = await anonymous.POST("/api/v1/auth/token", { body: { name, password } });
  if (!token.data) throw new Error(`log in: ${token.error?.detail}`);
  const client = createClient<paths>({
    baseUrl: base,
    headers: { authorization: `Bearer ${token.data.access_token}` },
  });
  const bots = Array.from({ length: seats - 1 }, () => "random");
  const created = await client.POST("/api/v1/matches", { body: { game, seats, bots } });
  if (!created.data) throw new Error(`create ${game}: ${created.error?.detail}`);
  const id = created.data.id;
  let version = created.data.version;
  let moves = 0;
  for (;;) {
    const got = await client.GET("/api/v1/matches/{id}", { params: { path: { id } } });
    if (!got.data) throw new Error(`read ${game}: ${got.error?.detail}`);
    const m = got.data;
    if (m.status === "finished" || m.status === "aborted") break;
    const action = decide(m);
    if (action && m.prompt) {
      const sent = await client.POST("/api/v1/matches/{id}/moves", {
        params: { path: { id } },
        body: { step: m.prompt.step, action },
      });
      // A bot seat may have moved between the read and this move: read again.
      if (sent.error && sent.response.status !== 409) {
        throw new Error(`${game} move ${JSON.stringify(action)}: ${sent.error.detail}`);
      }
      moves += 1;
    } else {
      // The bots' turn: wait for the match to change.
      version = m.version;
      await client.GET("/api/v1/matches/{id}", {
        params: { path: { id }, query: { after_version: version, wait: 10 } },
      });
    }
    if (moves > 5000) throw new Error(`${game}: the match does not end`);
  }
  return moves;
}

const base = process.argv[2] ?? "http://127.0.0.1:8080";
const games: [GameId, number][] = [
  ["malacca", 3],
  ["heretics", 2],
  ["kontor", 2],
  ["cairo", 2],
];
for (const [game, seats] of games) {
  const moves = await play(base, game, seats);
  console.log(`typescript bot: played ${game} to the end (${moves} moves of its own)`);
}
