package com.kindgi.pack;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A flow's declaration: nodes and the edges between them. A pack declares each as a
 * {@code public static final Flow} field of a class in a {@code flows} package. The runtime runs flows;
 * a {@link #toolNode} step calls its tool through the pack service.
 */
public final class Flow {
  /** A step of a flow: its id, its kind and what it runs. */
  public record Node(String id, String kind, Map<String, Object> fields, @Nullable Tool<?, ?> tool) {}

  /** An edge from one node to another. */
  public record Edge(String from, String to) {}

  private final String id;
  private @Nullable String version;
  private @Nullable String description;
  private final List<Node> nodes = new ArrayList<>();
  private final List<Edge> edges = new ArrayList<>();
  private final Map<String, Object> extras = new LinkedHashMap<>();

  private Flow(String id) {
    if (id == null || id.isBlank()) throw new IllegalArgumentException("A flow needs a non-empty id");
    this.id = id;
  }

  /** Starts a flow: {@code <pack-id>.<flow-name>}. */
  public static Flow define(String id) {
    return new Flow(id);
  }

  /** A step that runs {@code tool} (its version pinned). */
  public static Node toolNode(String nodeId, Tool<?, ?> tool) {
    return new Node(Objects.requireNonNull(nodeId, "nodeId"), "tool", Map.of(), Objects.requireNonNull(tool, "tool"));
  }

  /** A step of another kind, with its fields as the runtime reads them. */
  public static Node node(String nodeId, String kind, Map<String, ?> fields) {
    return new Node(nodeId, kind, Collections.unmodifiableMap(new LinkedHashMap<>(fields)), null);
  }

  public Flow version(String value) {
    this.version = Objects.requireNonNull(value, "version");
    return this;
  }

  public Flow description(String value) {
    this.description = Objects.requireNonNull(value, "description");
    return this;
  }

  public Flow node(Node node) {
    nodes.add(Objects.requireNonNull(node, "node"));
    return this;
  }

  public Flow edge(String from, String to) {
    edges.add(new Edge(from, to));
    return this;
  }

  /** Any other field of the flow's index entry. */
  public Flow set(String field, Object value) {
    if (List.of("id", "version", "modulePath", "nodes", "edges", "kernelPayloadVersion").contains(field)) {
      throw new IllegalArgumentException("Flow \"" + id + "\": " + field + " has its own method");
    }
    extras.put(field, Objects.requireNonNull(value, field));
    return this;
  }

  public String id() {
    return id;
  }

  public @Nullable String version() {
    return version;
  }

  public @Nullable String description() {
    return description;
  }

  public List<Node> nodes() {
    return Collections.unmodifiableList(nodes);
  }

  public List<Edge> edges() {
    return Collections.unmodifiableList(edges);
  }

  public Map<String, Object> extras() {
    return Collections.unmodifiableMap(extras);
  }

  @Override
  public String toString() {
    return "Flow{" + id + "}";
  }
}
