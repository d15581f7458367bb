package com.kindgi.pack.internal;

import com.kindgi.pack.Agent;
import com.kindgi.pack.Flow;
import com.kindgi.pack.Guardrail;
import com.kindgi.pack.Tool;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Loads one class of a primitive package and reads the primitives its public static final fields hold. */
final class ClassScan {
  /** A class that can't be indexed, with the file error's code. */
  static final class ScanException extends Exception {
    final String code;

    ScanException(String code, String message) {
      super(message);
      this.code = code;
    }
  }

  private static final Map<Class<?>, String> KIND_OF_TYPE =
      Map.of(Tool.class, "tools", Guardrail.class, "guardrails", Agent.class, "agents", Flow.class, "flows");
  private static final Map<String, String> NOUN =
      Map.of("tools", "tool", "guardrails", "guardrail", "agents", "agent", "flows", "flow");

  private ClassScan() {}

  static List<Indexer.Found> scan(ClassLoader loader, String className, String folderKind) throws ScanException {
    Class<?> type;
    try {
      type = Class.forName(className, true, loader);
    } catch (ExceptionInInitializerError e) {
      throw new ScanException("file-import-failed", "loading the class threw " + describe(e.getCause() == null ? e : e.getCause()));
    } catch (ClassNotFoundException | LinkageError e) {
      // A class whose initialiser failed before fails again as NoClassDefFoundError; its cause says why.
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) root = root.getCause();
      throw new ScanException("file-import-failed", "the class could not be loaded: " + describe(root));
    }
    List<Indexer.Found> found = new ArrayList<>();
    for (Field field : type.getDeclaredFields()) {
      String kind = kindOfType(field.getType());
      if (kind == null) continue;
      String where = type.getSimpleName() + "." + field.getName();
      if (!Indexer.isPublicStaticFinal(field)) {
        String how = !Modifier.isStatic(field.getModifiers()) ? "an instance field" : "a field that isn't public static final";
        throw new ScanException("no-default-export", where + " holds a " + NOUN.get(kind) + " in " + how
            + ", which is never indexed: declare it `public static final`");
      }
      Object value;
      try {
        value = field.get(null);
      } catch (IllegalAccessException e) {
        throw new ScanException("file-import-failed", where + " could not be read: " + describe(e));
      }
      if (value == null) throw new ScanException("manifest-validation-failed", where + " is null");
      if (!kind.equals(folderKind)) {
        throw new ScanException("kind-mismatch", where + " is a " + NOUN.get(kind) + ", but the class is in a `"
            + folderKind + "` package: move it to a `" + kind + "` package");
      }
      found.add(new Indexer.Found(kind, field.getName(), value));
    }
    if (found.isEmpty() && isPublicClass(type)) {
      throw new ScanException("no-default-export", "public class " + type.getSimpleName() + " in a `" + folderKind
          + "` package defines no " + NOUN.get(folderKind) + " as a `public static final` field: make a helper package-private, or a record, an enum or an interface");
    }
    return found;
  }

  private static String kindOfType(Class<?> fieldType) {
    for (Map.Entry<Class<?>, String> e : KIND_OF_TYPE.entrySet()) if (e.getKey().isAssignableFrom(fieldType)) return e.getValue();
    return null;
  }

  private static boolean isPublicClass(Class<?> type) {
    return Modifier.isPublic(type.getModifiers()) && !type.isRecord() && !type.isEnum() && !type.isInterface()
        && !type.isAnnotation();
  }

  static String describe(Throwable t) {
    return t.getClass().getSimpleName() + ": " + t.getMessage();
  }
}
