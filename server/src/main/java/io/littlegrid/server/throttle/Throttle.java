package io.littlegrid.server.throttle;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Admits at most {@code maxConcurrent} holders at once; up to {@code queueCapacity} more wait in strict FIFO
 * order; anyone beyond is refused at once (a proxy's maxconn with a bounded queue). A release hands its place
 * straight to the head of the queue, so a newcomer can never overtake a waiter.
 */
public final class Throttle {
    private final int maxConcurrent;
    private final int queueCapacity;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    private int admitted;          // invariant: queue non-empty ⇒ admitted == maxConcurrent
    private volatile int queueLength;
    private volatile int admittedNow;

    private static final class Waiter {
        final Condition turn;
        boolean admitted;

        Waiter(Condition turn) {
            this.turn = turn;
        }
    }

    public Throttle(int maxConcurrent, int queueCapacity) {
        if (maxConcurrent < 1 || queueCapacity < 0) {
            throw new IllegalArgumentException("need maxConcurrent >= 1 and queueCapacity >= 0, got "
                    + maxConcurrent + " and " + queueCapacity);
        }
        this.maxConcurrent = maxConcurrent;
        this.queueCapacity = queueCapacity;
    }

    /**
     * Returns true once admitted (at once, or after waiting in the queue), false at once if the queue is full.
     * An interrupted waiter leaves the queue (or gives back a place it was just handed) and rethrows.
     */
    public boolean acquire() throws InterruptedException {
        lock.lock();
        try {
            if (admitted < maxConcurrent) {
                admitted++;
                publish();
                return true;
            }
            if (queue.size() >= queueCapacity) {
                return false;
            }
            Waiter me = new Waiter(lock.newCondition());
            queue.addLast(me);
            publish();
            try {
                while (!me.admitted) {
                    me.turn.await();
                }
            } catch (InterruptedException e) {
                if (me.admitted) {
                    handOff();
                } else {
                    queue.remove(me);
                }
                publish();
                throw e;
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Gives an admitted place back: to the head of the queue if anyone waits, else to the pool. */
    public void release() {
        lock.lock();
        try {
            handOff();
            publish();
        } finally {
            lock.unlock();
        }
    }

    private void handOff() {
        Waiter next = queue.pollFirst();
        if (next == null) {
            admitted--;
        } else {
            next.admitted = true;
            next.turn.signal();
        }
    }

    private void publish() {
        queueLength = queue.size();
        admittedNow = admitted;
    }

    /** Requests waiting for a place now. */
    public int queueLength() {
        return queueLength;
    }

    /** Requests holding a place now (at most maxConcurrent). */
    public int admitted() {
        return admittedNow;
    }

    public int maxConcurrent() {
        return maxConcurrent;
    }

    public int queueCapacity() {
        return queueCapacity;
    }
}
