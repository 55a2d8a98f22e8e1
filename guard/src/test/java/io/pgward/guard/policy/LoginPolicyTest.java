package io.pgward.guard.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgward.guard.classify.ReadOnlyPolicy.CatalogFunctions;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoginPolicyTest {

    private static LoginPolicy login(List<String> tables) {
        return new LoginPolicy("analyst", "analyst", null, tables, "tables", null);
    }

    /** Issue 13: a login without a selection sees what its backend role may read. */
    @Test
    void aLoginWithoutASelectionIsNotHeldToTheSelectionsFunctions() {
        assertEquals(CatalogFunctions.UNRESTRICTED, login(List.of()).readOnlyPolicy(true).catalogFunctions());
        assertEquals(CatalogFunctions.UNRESTRICTED, login(List.of()).readOnlyPolicy(false).catalogFunctions());
    }

    @Test
    void aSelectionLeavesTheGatedFunctionsToTheCatalogCheckOnlyWhenOneFollows() {
        assertEquals(CatalogFunctions.GATED, login(List.of("public.orders")).readOnlyPolicy(true).catalogFunctions());
        assertEquals(CatalogFunctions.DENIED,
                login(List.of("public.orders")).readOnlyPolicy(false).catalogFunctions());
    }
}
