package acme.agents;

import acme.guardrails.Citations;
import acme.tools.VerifyCitation;
import com.kindgi.pack.Agent;

/** acme.brief-writer: the agent the seed wires the tool and the guardrail onto. */
public final class BriefWriter {
  public static final Agent AGENT = Agent.define("acme.brief-writer")
      .instructions("Write briefs; verify every citation you quote.")
      .tool(VerifyCitation.TOOL)
      .tool("other.lookup", "^1.0.0")
      .guardrail(Citations.NO_FABRICATED_QUOTES);

  private BriefWriter() {}
}
