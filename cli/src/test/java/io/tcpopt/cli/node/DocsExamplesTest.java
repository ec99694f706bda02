package io.tcpopt.cli.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tcpopt.common.config.ConfigTree;
import io.tcpopt.common.policy.PolicyDocument;
import io.tcpopt.common.tls.DemoCertificates;
import io.tcpopt.servicenode.ServiceNodeConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every complete node config and every data policy written as a YAML block in the docs parses and
 * validates with the real config readers, as DeployExamplesTest does for deploy/: an operator copies
 * them (docs/running-a-pair.md's loopback pair is the first thing one runs), and until now only the
 * files under deploy/ were checked, so a renamed setting left the docs' copies behind unseen.
 * Fragments (a section or an action alone) are left out: they are not meant to load on their own,
 * and so are the benchmark pages, dated records of what ran then.
 */
class DocsExamplesTest {
  private static final Path ROOT = Path.of("..");
  private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

  @TempDir Path dir;

  @Test
  void nodeConfigsAndPoliciesInTheDocsAreValid() throws Exception {
    List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md") && !p.getFileName().toString().startsWith("benchmarks")).sorted().forEach(pages::add);
    }
    DemoCertificates.generate(dir.resolve("certs"), List.of("branch-1", "dc-1"));
    int nodes = 0;
    int policies = 0;
    for (Path page : pages) {
      String markdown = Files.readString(page);
      Matcher block = YAML_BLOCK.matcher(markdown);
      while (block.find()) {
        String text = block.group(1);
        long line = markdown.substring(0, block.start()).lines().count() + 1;
        String where = page.getFileName() + ":" + line;
        ConfigTree tree = ConfigTree.parse(text, where);
        if (tree.has("node")) {
          loadNode(text.replace("certs/", dir.resolve("certs") + "/"), where);
          nodes++;
        } else if (tree.has("data-policy")) {
          PolicyDocument.parse(text, where);
          policies++;
        }
      }
    }
    assertTrue(nodes >= 2, "the loopback pair of docs/running-a-pair.md not found: " + nodes + " node configs");
    assertTrue(policies >= 2, "the profile policies of docs/tuning.md not found: " + policies + " policies");
  }

  private static void loadNode(String text, String where) {
    NodeConfig c = NodeConfig.from(ConfigTree.parse(text, where));
    if (c.roles().contains(Role.SERVICE_NODE)) {
      assertEquals(c.name(), ServiceNodeConfig.from(c.serviceNode(), c.name(), c.site()).nodeName(), where);
    }
  }
}
