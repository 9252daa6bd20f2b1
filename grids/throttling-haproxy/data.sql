-- The database grids/throttling-haproxy.toml reads: 100 000 rows, a primary key, a value to filter on. The grid's
-- query scans them and filters on v % 7: about 15-20 ms of one core, no I/O (the table, 8 MB, stays in shared buffers).
CREATE DATABASE littlegrid;
\connect littlegrid
CREATE TABLE items (id integer PRIMARY KEY, v integer NOT NULL, note text NOT NULL);
INSERT INTO items SELECT g, (g * 7919) % 10007, md5(g::text) FROM generate_series(1, 100000) AS g;
VACUUM ANALYZE items;
SELECT count(*) FROM items WHERE v % 7 = 3;
