package dev.strata.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strata.engine.host.HostFacts;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The config's host section and the host JSON are one format: same keys, same order. */
class HostYamlTest {

  @Test
  void hostKeysAreTheHostJsonKeysInOrder() throws Exception {
    List<String> json = new ArrayList<>();
    new ObjectMapper()
        .readTree(new ObjectMapper().writeValueAsString(Configs.M4_PRO))
        .fieldNames()
        .forEachRemaining(json::add);
    assertEquals(json, HostKeys.names());
    assertEquals(
        Arrays.asList(HostFacts.class.getAnnotation(JsonPropertyOrder.class).value()),
        HostKeys.names());
  }

  @Test
  void hostJsonReadsBackAsTheSameRecordTheYamlGives() throws Exception {
    String json = new ObjectMapper().writeValueAsString(Configs.LINUX);
    HostFacts fromJson = new ObjectMapper().readValue(json, HostFacts.class);
    EngineConfig c = Configs.withModel("cpu-reference", List.of("/m.gguf"), java.util.Map.of());
    assertEquals(fromJson, ConfigCodec.read(ConfigCodec.write(c), "x").host());
  }
}
