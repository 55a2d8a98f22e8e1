package io.pgward.wire.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgward.guard.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a Bind binds, as {@link TypeNameStatements} follows the session's prepared statements: certain within one
 * request and after a request that succeeded, uncertain after one that failed (its later messages were skipped) or
 * while the request that set it is still in flight, and never uncertain for a name that never held a statement with
 * type-name parameters.
 */
class TypeNameStatementsTest {

    private static final Verdict.TypeNameParameter REGTYPE_1 = new Verdict.TypeNameParameter(1, false);
    private static final TypeNameStatements.Lookup TYPED = new TypeNameStatements.Parameters(List.of(REGTYPE_1));

    @Test
    void aParseIsFollowedWithinItsRequestAndAfterItSucceeded() {
        TypeNameStatements statements = new TypeNameStatements();
        statements.parsed("", "SELECT ... $1::regtype", List.of(REGTYPE_1), 1);
        assertEquals(TYPED, statements.lookup("", 1));
        assertEquals(TypeNameStatements.Lookup.UNCERTAIN, statements.lookup("", 2), "request 1 is still in flight");
        statements.retired(1, false);
        assertEquals(TYPED, statements.lookup("", 2));
        statements.parsed("", "SELECT $1::text", List.of(), 2);
        assertEquals(TypeNameStatements.Lookup.NONE, statements.lookup("", 2));
    }

    @Test
    void aNameChangedInAFailedRequestIsUncertainUntilSetAgain() {
        TypeNameStatements statements = new TypeNameStatements();
        statements.parsed("", "SELECT ... $1::regtype", List.of(REGTYPE_1), 1);
        statements.retired(1, false);
        // Bind of a missing statement fails; the Parse after it in the same request is skipped.
        statements.parsed("", "SELECT $1::text", List.of(), 2);
        statements.retired(2, true);
        assertEquals(TypeNameStatements.Lookup.UNCERTAIN, statements.lookup("", 3));
        statements.parsed("", "SELECT $1::text", List.of(), 3);
        assertEquals(TypeNameStatements.Lookup.NONE, statements.lookup("", 3));
    }

    @Test
    void closeQueryDeallocateAndDiscardAreFollowed() {
        TypeNameStatements statements = new TypeNameStatements();
        statements.parsed("s1", "SELECT ... $1::regtype", List.of(REGTYPE_1), 1);
        statements.parsed("", "SELECT ... $1::regtype", List.of(REGTYPE_1), 1);
        statements.retired(1, false);
        statements.queried("SELECT 1", 2);
        statements.retired(2, false);
        assertEquals(TypeNameStatements.Lookup.NONE, statements.lookup("", 3), "a Query drops the unnamed statement");
        assertEquals(TYPED, statements.lookup("s1", 3));
        statements.queried("DEALLOCATE s1", 3);
        statements.retired(3, false);
        assertEquals(TypeNameStatements.Lookup.UNCERTAIN, statements.lookup("s1", 4));
        statements.closed("s1", 4);
        assertEquals(TypeNameStatements.Lookup.NONE, statements.lookup("s1", 4));
    }

    @Test
    void aNameThatNeverTookTypeNamesIsNeverUncertain() {
        TypeNameStatements statements = new TypeNameStatements();
        statements.parsed("plain", "SELECT $1::text", List.of(), 1);
        statements.retired(1, true);
        statements.queried("DISCARD ALL", 2);
        assertEquals(TypeNameStatements.Lookup.NONE, statements.lookup("plain", 3));
        assertEquals(TypeNameStatements.Lookup.NONE, statements.lookup("other", 3));
    }
}
