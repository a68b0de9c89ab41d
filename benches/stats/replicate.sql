-- Multiplies the finished matches of a database filled by `sealed-orders simulate`
-- (Postgres only): every finished match gets COPIES - 1 copies with new ids, the
-- same players, seats, moves, rounds, round seats, ledger, results and
-- rating-history rows, and its times moved by k·SPAN_DAYS/COPIES (wrapped into the
-- simulated span), so the copies spread evenly over the same months. A copy keeps
-- its original's seed, so its export verifies like the original's. Events are not
-- copied (no statistics or history endpoint reads them; the copies' live feeds are
-- empty); current ratings are left as they are. Every column of the copied tables
-- is listed: the script stops if the schema has one it does not copy.
--
-- Then rebuild the running totals:
--   psql -v copies=10 -v span_days=180 -f benches/stats/replicate.sql DBURL
--   (a million: -v copies=100 -v moves_copies=10, see below)
--   DATABASE_URL=DBURL sealed-orders rebuild-stats
\set ON_ERROR_STOP on
-- moves_copies (default: copies) limits the copies that get moves and ledger rows
-- to the first moves_copies - 1: no statistics, leaderboard or history endpoint
-- reads them, only the export, and they are most of a copy's bytes (a million
-- matches with them would not fit on a small machine's disk).
\if :{?moves_copies}
\else
\set moves_copies :copies
\endif
BEGIN;
-- The copies reference only rows that exist (their own match, copied first, and
-- the players of the original): foreign keys are not checked row by row. Checked,
-- they are one lookup and lock of a match per row at the end of each statement:
-- for a hundred copies, 67 million round seats, whose statement had run for 30
-- minutes, the last 10 of them in those checks, when it was stopped. (Needs a
-- superuser, as the bench's `postgres` is.)
SET LOCAL session_replication_role = replica;
-- Every column of the copied tables must be listed below: a column added to the
-- schema and not copied would leave the copies on its default, silently. This
-- stops the script, naming the columns to add.
DO $$
DECLARE missing text;
BEGIN
  SELECT string_agg(table_name || '.' || column_name, ', ' ORDER BY table_name, ordinal_position)
  INTO missing
  FROM information_schema.columns
  WHERE table_schema = current_schema()
    AND (table_name, column_name) NOT IN (SELECT t, c FROM (VALUES
      ('matches', ARRAY['id', 'game', 'status', 'seat_count', 'owner_id', 'options', 'position',
        'rated', 'seed', 'seed_sha256', 'state', 'step', 'version', 'engine_version',
        'data_sha256', 'created_at', 'started_at', 'finished_at', 'updated_at', 'variant',
        'deadline_at', 'move_time_limit', 'absent_move_time_limit', 'timeout_policy',
        'step_started_at', 'visibility', 'spectators', 'join_code', 'rematch_of', 'chat',
        'club_id', 'bank_initial_seconds', 'bank_increment_seconds', 'bank_cap_seconds',
        'grace_extensions', 'grace_seconds', 'playing_hours_zone', 'playing_hours_from',
        'playing_hours_to']),
      ('match_seats', ARRAY['match_id', 'seat', 'player_id', 'joined_at', 'bot', 'presence',
        'bank_ms', 'asked_at', 'moved_at', 'extension_ms', 'extension_step', 'graces_used',
        'away_from', 'away_until']),
      ('match_results', ARRAY['match_id', 'seat', 'player_id', 'score', 'rank', 'role']),
      ('rounds', ARRAY['match_id', 'round', 'step', 'value', 'outcome', 'total_a', 'total_b',
        'lead_seat', 'subject', 'created_at']),
      ('round_seats', ARRAY['match_id', 'round', 'seat', 'player_id', 'card', 'kind', 'stake',
        'choice', 'success', 'delta', 'drew']),
      ('moves', ARRAY['id', 'match_id', 'step', 'seat', 'player_id', 'action', 'public_action',
        'revealed', 'completes_step', 'version_after', 'created_at', 'idempotency_key',
        'private_until_end', 'author', 'nonce', 'commitment', 'replaced']),
      ('ledger', ARRAY['id', 'match_id', 'round', 'seat', 'amount', 'reason']),
      ('rating_history', ARRAY['id', 'game', 'player_id', 'match_id', 'mu_before',
        'sigma_before', 'mu_after', 'sigma_after', 'rating_after', 'rank', 'created_at'])
    ) AS l(t, cs), unnest(l.cs) AS c)
    AND table_name IN ('matches', 'match_seats', 'match_results', 'rounds', 'round_seats',
      'moves', 'ledger', 'rating_history');
  IF missing IS NOT NULL THEN
    RAISE EXCEPTION 'replicate.sql does not copy %: add them', missing;
  END IF;
END $$;
SELECT max(finished_at) AS cap FROM matches WHERE status = 'finished' \gset
CREATE TEMP TABLE copy_map AS
SELECT m.id AS old_id, c.k,
       md5(m.id::text || ':' || c.k)::uuid AS new_id,
       CASE WHEN m.finished_at + c.shift > :'cap'::timestamptz
            THEN c.shift - make_interval(days => :span_days) ELSE c.shift END AS eff
FROM matches m
CROSS JOIN (SELECT k, k * make_interval(days => :span_days) / :copies AS shift
            FROM generate_series(1, :copies - 1) k) c
WHERE m.status = 'finished';
-- A copy has no join code (codes are unique, and a finished match is joined by
-- nobody); a rematch of a copied match points at the same copy of it.
INSERT INTO matches (id, game, status, seat_count, owner_id, options, position, rated, seed,
    seed_sha256, state, step, version, engine_version, data_sha256, created_at, started_at,
    finished_at, updated_at, variant, deadline_at, move_time_limit, absent_move_time_limit,
    timeout_policy, step_started_at, visibility, spectators, join_code, rematch_of, chat,
    club_id, bank_initial_seconds, bank_increment_seconds, bank_cap_seconds,
    grace_extensions, grace_seconds, playing_hours_zone, playing_hours_from, playing_hours_to)
SELECT c.new_id, game, status, seat_count, owner_id, options, position, rated, seed,
    seed_sha256, state, step, version, engine_version, data_sha256, created_at + c.eff,
    started_at + c.eff, finished_at + c.eff, updated_at + c.eff, variant, deadline_at,
    move_time_limit, absent_move_time_limit, timeout_policy, step_started_at + c.eff,
    visibility, spectators, NULL, r.new_id, chat, club_id, bank_initial_seconds,
    bank_increment_seconds, bank_cap_seconds, grace_extensions, grace_seconds,
    playing_hours_zone, playing_hours_from, playing_hours_to
FROM matches m JOIN copy_map c ON c.old_id = m.id
LEFT JOIN copy_map r ON r.old_id = m.rematch_of AND r.k = c.k;
INSERT INTO match_seats (match_id, seat, player_id, joined_at, bot, presence, bank_ms,
    asked_at, moved_at, extension_ms, extension_step, graces_used, away_from, away_until)
SELECT c.new_id, seat, player_id, joined_at + c.eff, bot, presence, bank_ms,
    asked_at + c.eff, moved_at + c.eff, extension_ms, extension_step, graces_used,
    away_from + c.eff, away_until + c.eff
FROM match_seats s JOIN copy_map c ON c.old_id = s.match_id;
INSERT INTO match_results (match_id, seat, player_id, score, rank, role)
SELECT c.new_id, seat, player_id, score, rank, role
FROM match_results r JOIN copy_map c ON c.old_id = r.match_id;
INSERT INTO rounds (match_id, round, step, value, outcome, total_a, total_b, lead_seat, subject,
    created_at)
SELECT c.new_id, round, step, value, outcome, total_a, total_b, lead_seat, subject,
    created_at + c.eff
FROM rounds r JOIN copy_map c ON c.old_id = r.match_id;
INSERT INTO round_seats (match_id, round, seat, player_id, card, kind, stake, choice, success, delta, drew)
SELECT c.new_id, round, seat, player_id, card, kind, stake, choice, success, delta, drew
FROM round_seats rs JOIN copy_map c ON c.old_id = rs.match_id;
INSERT INTO moves (match_id, step, seat, player_id, action, public_action, revealed,
    completes_step, version_after, created_at, idempotency_key, private_until_end, author,
    nonce, commitment, replaced)
SELECT c.new_id, step, seat, player_id, action, public_action, revealed, completes_step,
    version_after, mv.created_at + c.eff, idempotency_key, private_until_end, author,
    nonce, commitment, replaced
FROM moves mv JOIN copy_map c ON c.old_id = mv.match_id
WHERE c.k < :moves_copies
ORDER BY c.new_id, mv.id;
INSERT INTO ledger (match_id, round, seat, amount, reason)
SELECT c.new_id, round, seat, amount, reason
FROM ledger l JOIN copy_map c ON c.old_id = l.match_id
WHERE c.k < :moves_copies
ORDER BY c.new_id, l.id;
INSERT INTO rating_history (game, player_id, match_id, mu_before, sigma_before, mu_after,
    sigma_after, rating_after, rank, created_at)
SELECT game, player_id, c.new_id, mu_before, sigma_before, mu_after, sigma_after,
    rating_after, rank, h.created_at + c.eff
FROM rating_history h JOIN copy_map c ON c.old_id = h.match_id;
COMMIT;
ANALYZE;
