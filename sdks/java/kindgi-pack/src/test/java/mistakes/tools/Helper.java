package mistakes.tools;

/** Common mistake 3: a public class in a tools package that defines no tool (a file error). */
public final class Helper {
  public static String shout(String s) {
    return s.toUpperCase();
  }
}
