package mistakes.tools;

/** A package-private helper: not a primitive, and not an error. */
final class Helpers {
  static int twice(int n) {
    return 2 * n;
  }
}
