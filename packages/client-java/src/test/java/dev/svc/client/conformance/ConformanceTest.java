package dev.svc.client.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.svc.client.live.LiveServer;
import dev.svc.client.live.LiveServerExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The shared client scenarios ({@code packages/client-conformance/scenarios/*.json}) against a
 * live console and api started as child processes with the scenarios' settings
 * ({@code server-env.json}): one dynamic test per scenario file, in file-name order.
 */
@ExtendWith(LiveServerExtension.class)
class ConformanceTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  static List<Path> scenarioFiles() throws IOException {
    try (Stream<Path> files = Files.list(LiveServer.conformanceDir().resolve("scenarios"))) {
      return files.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
    }
  }

  @TestFactory
  Stream<DynamicTest> sharedScenarios(LiveServer live) throws IOException {
    List<Path> files = scenarioFiles();
    assertThat(files).as("scenario files").isNotEmpty();
    ScenarioRunner runner = new ScenarioRunner(live, LiveServer.deadUrl());
    return files.stream()
        .map(
            file ->
                DynamicTest.dynamicTest(
                    file.getFileName().toString().replaceFirst("\\.json$", ""),
                    file.toUri(),
                    () -> runner.run(MAPPER.readTree(file.toFile()))));
  }

  @Test
  void scenariosCoverEveryCallAndEveryError() throws IOException {
    Set<String> calls = new TreeSet<>();
    Set<String> errors = new TreeSet<>();
    for (Path file : scenarioFiles()) {
      JsonNode scenario = MAPPER.readTree(file.toFile());
      for (JsonNode step : scenario.path("steps")) {
        if (step.has("call")) calls.add(step.get("call").asText());
        if (step.has("create")) calls.add("create");
        for (JsonNode error = step.path("expect").path("error"); error.isObject(); error = error.path("cause")) {
          errors.add(error.path("type").asText());
        }
      }
    }
    List<String> expectedCalls = new ArrayList<>(ScenarioRunner.CALLS);
    expectedCalls.add("create");
    assertThat(calls).containsExactlyInAnyOrderElementsOf(expectedCalls);
    assertThat(errors).containsExactlyInAnyOrderElementsOf(ScenarioRunner.ERROR_TYPES);
  }
}
