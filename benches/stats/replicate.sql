-- Multiplies the finished matches of a database filled by `sealed-orders simulate`
-- (Postgres only): every finished match gets COPIES - 1 copies with new ids, the
-- same players, seats, moves, rounds, round seats, ledger, results and
-- rating-history rows, and its times moved by k·SPAN_DAYS/COPIES (wrapped into the
-- simulated span), so the copies spread evenly over the same months. A copy keeps
-- its original's seed, so its export verifies like the original's. Events are not
-- copied (no statistics or history endpoint reads them; the copies' live feeds are
-- empty); current ratings are left as they are.
--
-- Then rebuild the running totals:
--   psql -v copies=10 -v span_days=180 -f benches/stats/replicate.sql DBURL
--   DATABASE_URL=DBURL sealed-orders rebuild-stats
\set ON_ERROR_STOP on
BEGIN;
SELECT max(finished_at) AS cap FROM matches WHERE status = 'finished' \gset
CREATE TEMP TABLE copy_map AS
SELECT m.id AS old_id,
       md5(m.id::text || ':' || c.k)::uuid AS new_id,
       CASE WHEN m.finished_at + c.shift > :'cap'::timestamptz
            THEN c.shift - make_interval(days => :span_days) ELSE c.shift END AS eff
FROM matches m
CROSS JOIN (SELECT k, k * make_interval(days => :span_days) / :copies AS shift
            FROM generate_series(1, :copies - 1) k) c
WHERE m.status = 'finished';
INSERT INTO matches (id, game, status, seat_count, owner_id, options, position, rated, seed,
    seed_sha256, state, step, version, engine_version, data_sha256, created_at, started_at,
    finished_at, updated_at, variant, deadline_at, move_time_limit, absent_move_time_limit,
    timeout_policy, step_started_at)
SELECT c.new_id, game, status, seat_count, owner_id, options, position, rated, seed,
    seed_sha256, state, step, version, engine_version, data_sha256, created_at + c.eff,
    started_at + c.eff, finished_at + c.eff, updated_at + c.eff, variant, deadline_at,
    move_time_limit, absent_move_time_limit, timeout_policy, step_started_at + c.eff
FROM matches m JOIN copy_map c ON c.old_id = m.id;
INSERT INTO match_seats (match_id, seat, player_id, joined_at, bot, presence)
SELECT c.new_id, seat, player_id, joined_at + c.eff, bot, presence
FROM match_seats s JOIN copy_map c ON c.old_id = s.match_id;
INSERT INTO match_results (match_id, seat, player_id, score, rank, role)
SELECT c.new_id, seat, player_id, score, rank, role
FROM match_results r JOIN copy_map c ON c.old_id = r.match_id;
INSERT INTO rounds (match_id, round, step, value, outcome, total_a, total_b, lead_seat, created_at)
SELECT c.new_id, round, step, value, outcome, total_a, total_b, lead_seat, created_at + c.eff
FROM rounds r JOIN copy_map c ON c.old_id = r.match_id;
INSERT INTO round_seats (match_id, round, seat, player_id, card, kind, stake, choice, success, delta, drew)
SELECT c.new_id, round, seat, player_id, card, kind, stake, choice, success, delta, drew
FROM round_seats rs JOIN copy_map c ON c.old_id = rs.match_id;
INSERT INTO moves (match_id, step, seat, player_id, action, public_action, revealed,
    completes_step, version_after, created_at, idempotency_key, private_until_end, author)
SELECT c.new_id, step, seat, player_id, action, public_action, revealed, completes_step,
    version_after, mv.created_at + c.eff, idempotency_key, private_until_end, author
FROM moves mv JOIN copy_map c ON c.old_id = mv.match_id
ORDER BY c.new_id, mv.id;
INSERT INTO ledger (match_id, round, seat, amount, reason)
SELECT c.new_id, round, seat, amount, reason
FROM ledger l JOIN copy_map c ON c.old_id = l.match_id
ORDER BY c.new_id, l.id;
INSERT INTO rating_history (game, player_id, match_id, mu_before, sigma_before, mu_after,
    sigma_after, rating_after, rank, created_at)
SELECT game, player_id, c.new_id, mu_before, sigma_before, mu_after, sigma_after,
    rating_after, rank, h.created_at + c.eff
FROM rating_history h JOIN copy_map c ON c.old_id = h.match_id;
COMMIT;
ANALYZE;
