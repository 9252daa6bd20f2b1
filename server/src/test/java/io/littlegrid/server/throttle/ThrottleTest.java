package io.littlegrid.server.throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ThrottleTest {

    /** Starts a thread that acquires, records its name once admitted, and holds its place until released. */
    private static Thread waiter(Throttle throttle, String name, List<String> admittedOrder) {
        Thread t = new Thread(() -> {
            try {
                if (throttle.acquire()) {
                    admittedOrder.add(name);
                }
            } catch (InterruptedException e) {
                admittedOrder.add(name + ":interrupted");
            }
        }, name);
        t.start();
        return t;
    }

    private static void awaitQueueLength(Throttle throttle, int length) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (throttle.queueLength() != length) {
            assertThat(System.nanoTime()).as("queue length never reached %d", length).isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    @Test
    void admitsExactlyMaxConcurrentAtOnceThenQueuesThenRefuses() throws InterruptedException {
        Throttle throttle = new Throttle(2, 1);
        assertThat(throttle.acquire()).isTrue();
        assertThat(throttle.acquire()).isTrue();
        assertThat(throttle.admitted()).isEqualTo(2);
        List<String> order = new CopyOnWriteArrayList<>();
        Thread queued = waiter(throttle, "q", order);
        awaitQueueLength(throttle, 1);
        assertThat(throttle.acquire()).as("queue full: refused at once").isFalse();
        assertThat(order).isEmpty();
        throttle.release();
        queued.join(5_000);
        assertThat(order).containsExactly("q");
        assertThat(throttle.admitted()).as("a release hands the place over, it does not free it").isEqualTo(2);
        assertThat(throttle.queueLength()).isZero();
    }

    @Test
    void queuedRequestsAreAdmittedInArrivalOrder() throws InterruptedException {
        Throttle throttle = new Throttle(1, 10);
        assertThat(throttle.acquire()).isTrue();
        List<String> order = new CopyOnWriteArrayList<>();
        List<Thread> threads = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            threads.add(waiter(throttle, "w" + i, order));
            awaitQueueLength(throttle, i + 1); // arrival order is fixed before the next one starts
        }
        for (int i = 0; i < 6; i++) {
            throttle.release();
            threads.get(i).join(5_000);
        }
        assertThat(order).containsExactly("w0", "w1", "w2", "w3", "w4", "w5");
    }

    @Test
    void aNewcomerCannotOvertakeAWaiter() throws InterruptedException {
        Throttle throttle = new Throttle(1, 5);
        assertThat(throttle.acquire()).isTrue();
        List<String> order = new CopyOnWriteArrayList<>();
        Thread first = waiter(throttle, "first", order);
        awaitQueueLength(throttle, 1);
        throttle.release();               // handed to "first", not back to the pool
        first.join(5_000);
        assertThat(order).containsExactly("first");
        Thread late = waiter(throttle, "late", order);
        awaitQueueLength(throttle, 1);    // "first" still holds the only place
        assertThat(order).containsExactly("first");
        throttle.release();
        late.join(5_000);
        assertThat(order).containsExactly("first", "late");
    }

    @Test
    void zeroQueueRefusesEveryoneBeyondTheLimit() throws InterruptedException {
        Throttle throttle = new Throttle(3, 0);
        for (int i = 0; i < 3; i++) {
            assertThat(throttle.acquire()).isTrue();
        }
        assertThat(throttle.acquire()).isFalse();
        throttle.release();
        assertThat(throttle.acquire()).isTrue();
        assertThat(throttle.admitted()).isEqualTo(3);
    }

    @Test
    void anInterruptedWaiterLeavesTheQueueWithoutTakingAPlace() throws InterruptedException {
        Throttle throttle = new Throttle(1, 2);
        assertThat(throttle.acquire()).isTrue();
        List<String> order = new CopyOnWriteArrayList<>();
        Thread quitter = waiter(throttle, "quitter", order);
        awaitQueueLength(throttle, 1);
        quitter.interrupt();
        quitter.join(5_000);
        assertThat(order).containsExactly("quitter:interrupted");
        assertThat(throttle.queueLength()).isZero();
        throttle.release();
        assertThat(throttle.admitted()).isZero();
    }

    @Test
    void refusesNonsensicalLimits() {
        assertThatThrownBy(() -> new Throttle(0, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Throttle(1, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
