"""A closed-workload JTL written the way JMeter writes one (issue 36), for the benchmarks.

JMeter's threads each run the plan's samplers in sequence: a timer's think time, then the sampler, then the next;
a sample is written when it completes, so the file holds the threads' samples interleaved in completion order
(its timeStamp is the sample's start, JMeter's default). The plan here: `threads` threads (100), five samplers
with lognormal response times of their own, an exponential think time (JMeter's Poisson/exponential timers) before
each, ~1% failures (500). Optionally:

- `transactions`: a Transaction Controller "Checkout" wraps the last two samplers; JMeter writes its row after
  them, starting where the first child's timer began, its elapsed the children's and its IdleTime their timers'
  (`Include duration of timer...` unchecked, the default), its message "Number of samples in transaction : 2, ...".
- `subresults`: the first sampler follows a redirect; JMeter writes the parent, then its sub-results `label-0` and
  `label-1`, which split the parent's span between them (jmeter.save.saveservice.subresults=true, the default).

At the default rate a thread takes ~216 ms a cycle (R + Z), so 100 threads write ~463 rows a second: 5 M rows
span 3 hours, 20 M 12 hours, 100 M 60 hours. The file is generated a chunk of iterations at a time with numpy
and written as text by pyarrow's string kernels, ~125 bytes a row, in memory bounded by the chunk.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

HEADER = ("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,"
          "bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect")
# (label, median ms, lognormal sigma, URL path); the plan's samplers in the order each thread runs them
SAMPLERS = (("GET /", 40, 0.5, "/"), ("GET /api/items", 80, 0.6, "/api/items"),
            ("GET /api/items/{id}", 30, 0.4, "/api/items/42"), ("PUT /api/cart", 60, 0.7, "/api/cart"),
            ("POST /api/orders", 150, 0.8, "/api/orders"))
TRANSACTION = "Checkout"  # wraps the last two samplers when asked
THINK_MEAN_MS = 120.0
START_MS = 1_700_000_000_000
ITERATIONS_PER_CHUNK = 2_000  # per thread: 100 threads × 2,000 iterations × 5 samplers = 1 M rows a chunk
TX_MESSAGE = '"Number of samples in transaction : 2, number of failing samples : {}"'


def rows_per_iteration(transactions: bool, subresults: bool) -> int:
    return len(SAMPLERS) + (1 if transactions else 0) + (2 if subresults else 0)


def generate_closed(path: Path, rows: int, threads: int = 100, transactions: bool = False,
                    subresults: bool = False, seed: int = 1) -> None:
    """Write about `rows` rows (whole iterations of every thread, at least `rows`) to `path`."""
    rng = np.random.default_rng(seed)
    per_iteration = rows_per_iteration(transactions, subresults)
    iterations = -(-rows // (threads * per_iteration))
    clock = np.full(threads, START_MS, np.int64) + rng.integers(0, 1000, threads)  # ramp-up within a second
    held: pa.Table | None = None  # rows written after the chunk's end: merged into the next one's order
    with open(path, "wb") as out:
        out.write((HEADER + "\n").encode())
        done = 0
        while done < iterations:
            m = min(ITERATIONS_PER_CHUNK, iterations - done)
            chunk, clock, cutoff = _chunk(rng, clock, threads, m, transactions, subresults)
            if held is not None:
                chunk = pa.concat_tables([held, chunk])
            done += m
            last = done >= iterations
            order = np.lexsort((chunk["seq"].to_numpy(), chunk["write"].to_numpy()))
            chunk = chunk.take(order)
            # a row written before every thread's last write of this chunk cannot be overtaken by a later chunk
            ready = len(chunk) if last else int(np.searchsorted(chunk["write"].to_numpy(), cutoff, side="right"))
            out.write(_lines(chunk.slice(0, ready)))
            held = chunk.slice(ready)


def _chunk(rng, clock, threads, m, transactions, subresults):
    """m iterations of every thread: its rows (a table with `write`, the time JMeter writes each, and `seq`, the
    order within a thread), the threads' clocks after them, and the earliest of the threads' last writes."""
    s = len(SAMPLERS)
    median = np.array([x[1] for x in SAMPLERS], float)
    sigma = np.array([x[2] for x in SAMPLERS], float)
    shape = (threads, m, s)
    elapsed = np.maximum(1, np.rint(median * np.exp(sigma * rng.standard_normal(shape)))).astype(np.int64)
    think = np.rint(rng.exponential(THINK_MEAN_MS, shape)).astype(np.int64)
    step = (think + elapsed).reshape(threads, m * s)
    end = (clock[:, None] + np.cumsum(step, axis=1)).reshape(shape)
    start = end - elapsed
    failed = rng.random(shape) < 0.01
    thread = np.broadcast_to(np.arange(threads)[:, None, None], shape)
    sampler = np.broadcast_to(np.arange(s)[None, None, :], shape)
    iteration = np.broadcast_to(np.arange(m)[None, :, None], shape)
    base_seq = (iteration * (s + 3) + sampler * 2).astype(np.int64)  # room for a parent's rows after it
    parts = [dict(start=start, elapsed=elapsed, sampler=sampler, failed=failed, thread=thread, write=end,
                  seq=base_seq, idle=np.zeros(shape, np.int64), kind=np.zeros(shape, np.int8))]
    if transactions:  # after the last two samplers: starts at the first's timer, spans both
        a, b = s - 2, s - 1
        tx_fail = failed[:, :, a] | failed[:, :, b]
        parts.append(dict(start=start[:, :, a] - think[:, :, a], elapsed=elapsed[:, :, a] + elapsed[:, :, b],
                          sampler=np.full((threads, m), -1), failed=tx_fail, thread=thread[:, :, 0],
                          write=end[:, :, b], seq=base_seq[:, :, b] + 1, idle=think[:, :, a] + think[:, :, b],
                          kind=np.full((threads, m), 1, np.int8)))
    if subresults:  # the first sampler's redirect: -0 then -1, inside the parent, written after it
        e = elapsed[:, :, 0]
        first = np.maximum(1, e // 3)
        for k, (st, el) in enumerate(((start[:, :, 0], np.minimum(first, e)),
                                      (start[:, :, 0] + np.minimum(first, e), e - np.minimum(first, e)))):
            parts.append(dict(start=st, elapsed=el, sampler=np.zeros((threads, m), int), failed=failed[:, :, 0] & (k == 1),
                              thread=thread[:, :, 0], write=end[:, :, 0], seq=base_seq[:, :, 0] + 1 + k,
                              idle=np.zeros((threads, m), np.int64), kind=np.full((threads, m), 2 + k, np.int8)))
    columns = {key: np.concatenate([np.ravel(p[key]) for p in parts]) for key in parts[0]}
    table = pa.table({key: pa.array(v) for key, v in columns.items()})
    table = table.append_column("received", pa.array(rng.integers(200, 20000, len(table))))
    return table, end[:, -1, -1].copy(), int(end[:, -1, -1].min())


def _text(values: np.ndarray, names: list[str]) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(values, pa.int32()), pa.array(names)).cast(pa.string())


def _lines(t: pa.Table) -> bytes:
    """The rows as JMeter's default CSV: one string per row joined by pyarrow, written as one buffer."""
    if len(t) == 0:
        return b""
    kind = t["kind"].to_numpy()
    sampler = t["sampler"].to_numpy()
    failed = t["failed"].to_numpy()
    s = len(SAMPLERS)
    # label: sampler i → i, the transaction → s, a sub-result k → s + 1 + k
    label_index = np.where(kind == 1, s, np.where(kind >= 2, s + kind - 1, sampler)).astype(np.int32)
    labels = [x[0] for x in SAMPLERS] + [TRANSACTION, SAMPLERS[0][0] + "-0", SAMPLERS[0][0] + "-1"]
    urls = ["http://127.0.0.1:8080" + x[3] for x in SAMPLERS] + ["null", "http://127.0.0.1:8080/",
                                                                  "http://127.0.0.1:8080/home"]
    tx = kind == 1
    message_index = np.where(tx, 2 + failed.astype(np.int32), failed.astype(np.int32))
    messages = ["OK", "Internal Server Error", TX_MESSAGE.format(0), TX_MESSAGE.format(1)]
    elapsed = t["elapsed"].to_numpy()
    as_str = lambda a: pc.cast(pa.array(a), pa.string())  # noqa: E731
    threads = as_str(t["thread"].to_numpy() + 1)
    columns = [
        as_str(t["start"].to_numpy()), as_str(elapsed), _text(label_index, labels),
        _text(failed.astype(np.int32), ["200", "500"]), _text(message_index, messages),
        pc.binary_join_element_wise("Thread Group 1-", threads, ""),
        _text(tx.astype(np.int32), ["text", ""]), _text(failed.astype(np.int32), ["true", "false"]),
        _text(failed.astype(np.int32), ["", "Test failed: code expected to be 200"]),
        as_str(t["received"].to_numpy()), as_str(np.where(tx, 0, 120 + label_index)),
        pa.array(["100"] * len(t)), pa.array(["100"] * len(t)), _text(label_index, urls),
        as_str(np.where(tx, 0, np.maximum(elapsed - 1, 0))), as_str(t["idle"].to_numpy()),
        as_str(np.where(tx, 0, (elapsed > 100).astype(np.int64))),
    ]
    line = pc.binary_join_element_wise(*columns, ",")
    line = pc.binary_join_element_wise(line, pa.array([""] * len(t)), "\n")
    if isinstance(line, pa.ChunkedArray):
        line = line.combine_chunks()
    offsets = np.frombuffer(line.buffers()[1], np.int32, len(line) + 1, line.offset * 4)
    return line.buffers()[2].to_pybytes()[offsets[0]:offsets[-1]]
