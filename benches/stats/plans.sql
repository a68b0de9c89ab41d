-- The query plans the statistics rely on, as the server issues them (sea-query's
-- output written out by hand). Postgres:
--   psql -v player=sim-0 -f benches/stats/plans.sql postgres://…/so_scale_100k
\pset pager off
SELECT id AS pid FROM players WHERE name = :'player' \gset
SELECT max(finished_at) - interval '97 days 3 hours 17 minutes' AS since,
       max(finished_at) - interval '31 days 5 hours 41 minutes' AS until
FROM matches WHERE status = 'finished' \gset
SELECT floor(extract(epoch FROM :'since'::timestamptz) / 3600)::bigint + 1 AS h_lo,
       floor(extract(epoch FROM :'until'::timestamptz) / 3600)::bigint AS h_hi \gset
SELECT (:h_lo + 23) / 24 AS d_lo, :h_hi / 24 AS d_hi \gset
-- 8-day blocks inside the days (the window is shorter than two 64-day blocks, so
-- Window::new stops there: blocks inside, days and hours at the edges).
SELECT (:d_lo + 7) / 8 AS e_lo, :d_hi / 8 AS e_hi \gset

\echo '== game statistics, no window: per-value round outcomes (the largest metric) from the 512-day totals'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT CAST(0 AS BIGINT) AS seats, '' AS variant,
       CASE WHEN k_null THEN NULL ELSE k_text END AS key_text,
       CASE WHEN k_null THEN NULL ELSE k_num END AS key_num, k2 AS key2,
       CAST(SUM(n) AS BIGINT), CAST(SUM(s1) AS BIGINT), CAST(SUM(s2) AS BIGINT),
       CAST(SUM(s3) AS BIGINT), CAST(SUM(s4) AS BIGINT)
FROM stat_game_totals
WHERE metric = 'round' AND (grain = 5) AND game = 'malacca' AND positional = FALSE
GROUP BY k_text, k_num, k_null, k2;

\echo '== game statistics, ragged window and players=4: 8-day blocks, then days, then hours at the edges'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT CASE WHEN k_null THEN NULL ELSE k_text END AS key_text,
       CAST(SUM(n) AS BIGINT), CAST(SUM(s1) AS BIGINT), CAST(SUM(s2) AS BIGINT),
       CAST(SUM(s3) AS BIGINT), CAST(SUM(s4) AS BIGINT)
FROM stat_game_totals
WHERE metric = 'kind'
  AND ((grain = 3 AND bucket >= :e_lo AND bucket < :e_hi)
    OR (grain = 2 AND bucket >= :d_lo AND bucket < :e_lo * 8)
    OR (grain = 2 AND bucket >= :e_hi * 8 AND bucket < :d_hi)
    OR (grain = 1 AND bucket >= :h_lo AND bucket < :d_lo * 24)
    OR (grain = 1 AND bucket >= :d_hi * 24 AND bucket < :h_hi))
  AND game = 'malacca' AND positional = FALSE AND seat_count = 4
GROUP BY k_text, k_num, k_null, k2;

\echo '== game statistics, the minutes before the first whole hour: from the history tables'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT m.game, rs.kind, CAST(COUNT(*) AS BIGINT),
       CAST(SUM(CASE WHEN rs.success THEN 1 ELSE 0 END) AS BIGINT),
       CAST(SUM(COALESCE(rs.stake, 0)) AS BIGINT), CAST(SUM(rs.delta) AS BIGINT)
FROM round_seats AS rs INNER JOIN matches AS m ON m.id = rs.match_id
WHERE m.status = 'finished' AND m.game = 'malacca' AND m.position IS NULL
  AND m.finished_at >= :'since' AND m.finished_at < to_timestamp(:h_lo * 3600)
  AND m.seat_count = 4
GROUP BY m.game, rs.kind ORDER BY rs.kind;

\echo '== player statistics: the player''s totals'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT game, CASE WHEN k_null THEN NULL ELSE k_text END AS key_text,
       CAST(SUM(n) AS BIGINT), CAST(SUM(s1) AS BIGINT), CAST(SUM(s2) AS BIGINT),
       CAST(SUM(s3) AS BIGINT), CAST(SUM(s4) AS BIGINT)
FROM stat_player_totals
WHERE player_id = :'pid' AND metric = 'kind' AND positional = FALSE
GROUP BY game, k_text, k_null;

\echo '== player statistics: active matches, counted live'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT m.game, CAST(COUNT(*) AS BIGINT)
FROM match_seats AS s INNER JOIN matches AS m ON m.id = s.match_id
WHERE s.player_id = :'pid' AND m.status IN ('active') AND m.position IS NULL
GROUP BY m.game;

\echo '== the player''s match history (GET /matches?player=…&status=finished)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT id, game, status, finished_at FROM matches
WHERE status = 'finished'
  AND id IN (SELECT match_id FROM match_seats WHERE player_id = :'pid')
ORDER BY id DESC LIMIT 51;

\echo '== rating history (GET /players/{name}/ratings?game=malacca)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM rating_history WHERE player_id = :'pid' AND game = 'malacca'
ORDER BY id ASC LIMIT 51;

\echo '== leaderboard, a later page with min_games=20'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM ratings WHERE game = 'malacca' AND games >= 20
ORDER BY rating DESC, player_id ASC LIMIT 51 OFFSET 200;
