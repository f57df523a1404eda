package dev.svc.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private static Backoff backoff(double random) {
    return new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(60), () -> random);
  }

  private static List<Long> delays(Backoff backoff, int n) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < n; i++) out.add(backoff.nextMs());
    return out;
  }

  @Test
  void doublesFromOneSecondToThirtyWithEqualJitter() {
    // random 1: the full delay; random 0: half of it.
    assertThat(delays(backoff(0.999999), 7)).containsExactly(1000L, 2000L, 4000L, 8000L, 16000L, 30000L, 30000L);
    assertThat(delays(backoff(0), 7)).containsExactly(500L, 1000L, 2000L, 4000L, 8000L, 15000L, 15000L);
  }

  @Test
  void jitterStaysWithinHalfAndWholeDelay() {
    Backoff real = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(60));
    List<Long> got = delays(real, 40);
    assertThat(got.get(0)).isBetween(500L, 1000L);
    assertThat(got.get(39)).isBetween(15000L, 30000L);
  }

  @Test
  void aLongConnectionStartsTheDelaysOver() {
    Backoff b = backoff(0.999999);
    delays(b, 4);
    b.connectionEnded(59_999);
    assertThat(b.nextMs()).isEqualTo(16000L);
    b.connectionEnded(60_000);
    assertThat(b.isLong(60_000)).isTrue();
    assertThat(b.nextMs()).isEqualTo(1000L);
    delays(b, 3);
    b.reset();
    assertThat(b.nextMs()).isEqualTo(1000L);
  }
}
