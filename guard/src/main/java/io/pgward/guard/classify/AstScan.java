package io.pgward.guard.classify;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.NextValExpression;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.ForMode;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Looks at every node of a JSqlParser tree for what a read-only query must not contain: a statement that is not a
 * query (a data-modifying CTE), {@code INTO}, a locking clause, a call of a denied function.
 *
 * <p>"Every node" is meant literally: the walk follows every field of every JSqlParser object reachable from the
 * root (through lists, maps and arrays), instead of a visitor that names the node types it knows. A node type a
 * visitor forgot (a function in a window frame, a TABLESAMPLE argument, a JSON clause, a LATERAL function, a future
 * JSqlParser class) cannot hide a call or a sub-select this way. The parser's own token objects are not followed.
 */
final class AstScan {

    /** One thing found. {@code what} is the text for the refusal; {@code functionName} is set for a function. */
    record Finding(String rule, String what, String functionName) {
    }

    private static final String AST_PACKAGE = "net.sf.jsqlparser.";
    private static final String PARSER_PACKAGE = "net.sf.jsqlparser.parser.";

    private static final ClassValue<List<Field>> FIELDS = new ClassValue<>() {
        @Override
        protected List<Field> computeValue(Class<?> type) {
            List<Field> fields = new ArrayList<>();
            for (Class<?> c = type; c != null && c.getName().startsWith(AST_PACKAGE); c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
                        continue;
                    }
                    f.setAccessible(true);
                    fields.add(f);
                }
            }
            return List.copyOf(fields);
        }
    };

    private final DeniedFunctions denied;

    AstScan(DeniedFunctions denied) {
        this.denied = denied;
    }

    /** The first problem in the tree, or null when it is a plain read. */
    Finding scan(Statement root, ReadOnlyPolicy.CatalogFunctions catalogFunctions) {
        if (!(root instanceof Select)) {
            return new Finding(Refusals.STATEMENT_KIND, kindOf(root), null);
        }
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Object> pending = new ArrayDeque<>();
        pending.add(root);
        while (!pending.isEmpty()) {
            Object node = pending.removeFirst();
            if (!seen.add(node)) {
                continue;
            }
            Finding finding = inspect(node, catalogFunctions);
            if (finding != null) {
                return finding;
            }
            for (Field f : FIELDS.get(node.getClass())) {
                Object value;
                try {
                    value = f.get(node);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("cannot read " + f, e);
                }
                enqueue(value, pending);
            }
        }
        return null;
    }

    private Finding inspect(Object node, ReadOnlyPolicy.CatalogFunctions catalogFunctions) {
        if (node instanceof Statement s && !(node instanceof Select)) {
            return new Finding(Refusals.DML_IN_CTE, kindOf(s) + " inside WITH", null);
        }
        if (node instanceof PlainSelect p
                && ((p.getIntoTables() != null && !p.getIntoTables().isEmpty()) || p.getIntoTempTable() != null)) {
            return new Finding(Refusals.SELECT_INTO, "SELECT ... INTO", null);
        }
        if (node instanceof Select s && locks(s)) {
            String mode = s.getForMode() == null ? "UPDATE" : s.getForMode().getValue();
            return new Finding(Refusals.LOCKING, "FOR " + mode, null);
        }
        String function = switch (node) {
            case Function f -> lastPart(f.getMultipartName(), f.getName());
            case AnalyticExpression a -> lastPart(null, a.getName());
            case NextValExpression n -> "nextval";
            default -> null;
        };
        if (function != null && denied.denies(function, catalogFunctions)) {
            return new Finding(Refusals.DENIED_FUNCTION, "the function " + function + "()", function);
        }
        return null;
    }

    /** A locking clause; PostgreSQL's {@code FOR READ ONLY} (standard SQL, alone by its grammar) locks nothing. */
    private static boolean locks(Select s) {
        return s.getForMode() != null && s.getForMode() != ForMode.READ_ONLY || s.getForUpdateTable() != null
                || s.isNoWait() || s.isSkipLocked() || s.getWait() != null;
    }

    private static void enqueue(Object value, Deque<Object> pending) {
        switch (value) {
            case null -> { }
            case Collection<?> c -> c.forEach(e -> enqueue(e, pending));
            case Map<?, ?> m -> m.forEach((k, v) -> {
                enqueue(k, pending);
                enqueue(v, pending);
            });
            case Object[] a -> {
                for (Object e : a) {
                    enqueue(e, pending);
                }
            }
            default -> {
                String name = value.getClass().getName();
                if (name.startsWith(AST_PACKAGE) && !name.startsWith(PARSER_PACKAGE) && !(value instanceof Enum)) {
                    pending.add(value);
                }
            }
        }
    }

    /**
     * A function's own name as PostgreSQL resolves it: the last part of a qualified name, an unquoted name folded to
     * lower case, a quoted one unquoted and kept as written.
     */
    static String lastPart(List<String> parts, String name) {
        String last = parts != null && !parts.isEmpty() ? parts.get(parts.size() - 1) : name;
        if (last == null) {
            return null;
        }
        if (parts == null || parts.isEmpty()) {
            int dot = last.lastIndexOf('.');   // an unsplit qualified name; quoted dots do not reach here
            if (dot >= 0 && !last.endsWith("\"")) {
                last = last.substring(dot + 1);
            }
        }
        if (last.length() >= 2 && last.startsWith("\"") && last.endsWith("\"")) {
            return last.substring(1, last.length() - 1).replace("\"\"", "\"");
        }
        return last.toLowerCase(Locale.ROOT);
    }

    /** INSERT, UPDATE, DELETE, MERGE, ... from the node's class. */
    static String kindOf(Statement s) {
        String name = s.getClass().getSimpleName().replaceFirst("^Parenthesed", "");
        return name.toUpperCase(Locale.ROOT);
    }
}
