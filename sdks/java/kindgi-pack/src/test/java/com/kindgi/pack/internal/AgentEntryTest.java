package com.kindgi.pack.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.kindgi.pack.Agent;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An agent's index entry carries what a turn needs, as specs/pack-index.schema.json's agent entry says. */
class AgentEntryTest {
  private static Schema agentSchema() throws Exception {
    ObjectNode spec = (ObjectNode) Json.parse(Files.readString(Path.of("../../../specs/pack-index.schema.json")));
    // Only the agent entry: its $defs, referenced from an otherwise empty document.
    ObjectNode agent = Json.mapper().createObjectNode();
    agent.set("$defs", spec.get("$defs"));
    agent.put("$ref", "#/$defs/agent");
    return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(agent);
  }

  @Test
  void writesModelToolErrorsAndConversationPolicyAsTheSpecDescribes() throws Exception {
    Agent agent = Agent.define("acme.helper")
        .name("Helper")
        .instructions("Help.")
        .model("fast")
        .tool("other.fetch", "^1.2.0")
        .guardrail("acme.cites")
        .toolErrors("tool-error", "input-validation-failed", "tool-error")
        .hitl(true)
        .conversationPolicy("maxSteps", 6)
        .conversationPolicy("maxToolCalls", 12);
    Map<String, Object> entry = IndexEntries.agent(agent, "src/main/java/acme/agents/Helper.java", "1.0.0");
    assertEquals("fast", entry.get("model"));
    assertEquals("Helper", entry.get("name"));
    assertEquals(List.of("tool-error", "input-validation-failed"), entry.get("toolErrors"));
    assertEquals(Map.of("hitl", true, "maxSteps", 6, "maxToolCalls", 12), entry.get("conversationPolicy"));
    assertEquals(List.of(Map.of("id", "other.fetch", "range", "^1.2.0")), entry.get("tools"));
    assertTrue(agentSchema().validate(Json.tree(entry)).isEmpty(), agentSchema().validate(Json.tree(entry)).toString());
  }

  @Test
  void takesApprovalGateSettingsAsAMap() throws Exception {
    Agent agent = Agent.define("acme.helper").instructions("Help.")
        .conversationPolicy("hitl", Map.of("tools", List.of("acme.lookup"), "exempt", List.of("acme.send")));
    Map<String, Object> entry = IndexEntries.agent(agent, "src/main/java/acme/agents/Helper.java", "1.0.0");
    assertTrue(agentSchema().validate(Json.tree(entry)).isEmpty());
  }

  @Test
  void refusesWhatATurnCouldNotRead() {
    assertThrows(IllegalArgumentException.class, () -> Agent.define("acme.a").toolErrors("Tool Error"));
    assertThrows(IllegalArgumentException.class, () -> Agent.define("acme.a").model(" "));
    assertThrows(IllegalArgumentException.class, () -> Agent.define("acme.a").set("toolErrors", List.of()));
    IndexEntries.EntryException steps = assertThrows(IndexEntries.EntryException.class, () -> IndexEntries.agent(
        Agent.define("acme.a").instructions("x").conversationPolicy("maxSteps", 0), "a.java", "1.0.0"));
    assertEquals("agent \"acme.a\": conversationPolicy.maxSteps must be a whole number from 1 to 100", steps.getMessage());
    IndexEntries.EntryException gates = assertThrows(IndexEntries.EntryException.class, () -> IndexEntries.agent(
        Agent.define("acme.a").instructions("x").conversationPolicy("hitl", Map.of("ask", true)), "a.java", "1.0.0"));
    assertEquals("manifest-validation-failed", gates.code);
  }
}
