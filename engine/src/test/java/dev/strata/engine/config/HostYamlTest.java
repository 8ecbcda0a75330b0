package dev.strata.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostFactsCodec;
import dev.strata.engine.host.HostKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** The config's host section and the host JSON are one format: same keys, same order. */
class HostYamlTest {

  @Test
  void theConfigsHostSectionHasTheHostJsonsKeysInOrder() throws Exception {
    List<String> json = new ArrayList<>();
    new ObjectMapper()
        .readTree(HostFactsCodec.write(Configs.M4_PRO))
        .fieldNames()
        .forEachRemaining(json::add);
    EngineConfig c = Configs.withModel("cpu-reference", List.of("/m.gguf"), Map.of());
    Map<?, ?> top = new Yaml(new SafeConstructor(new LoaderOptions())).load(ConfigCodec.write(c));
    assertEquals(json, new ArrayList<>(((Map<?, ?>) top.get("host")).keySet()));
    assertEquals(json, HostKeys.names());
  }

  @Test
  void hostJsonReadsBackAsTheSameRecordTheYamlGives() {
    HostFacts fromJson = HostFactsCodec.read(HostFactsCodec.write(Configs.LINUX), "x");
    EngineConfig c = Configs.withModel("cpu-reference", List.of("/m.gguf"), Map.of());
    assertEquals(fromJson, ConfigCodec.read(ConfigCodec.write(c), "x").host());
  }
}
