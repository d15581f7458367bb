package acme.flows;

import static com.kindgi.pack.Flow.toolNode;

import acme.tools.VerifyCitation;
import com.kindgi.pack.Flow;

/** acme.verify-flow: a one-step flow that runs the tool. */
public final class Verify {
  public static final Flow FLOW = Flow.define("acme.verify-flow")
      .node(toolNode("verify", VerifyCitation.TOOL));

  private Verify() {}
}
