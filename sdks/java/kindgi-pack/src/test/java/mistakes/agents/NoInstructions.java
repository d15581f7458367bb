package mistakes.agents;

import com.kindgi.pack.Agent;

/** An agent the seed's {@code // …} leaves without instructions: a file error naming the class and field. */
public final class NoInstructions {
  public static final Agent AGENT = Agent.define("mistakes.no-instructions").tool("other.lookup", "^1.0.0");

  private NoInstructions() {}
}
