package mistakes.tools;

/** A public record in a tools package: a type, not an error. */
public record Shapes(int sides) {}
