package io.pgward.wire.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.config.PgwardConfig.Login;
import io.pgward.wire.config.PgwardConfig.Mode;
import io.pgward.wire.config.PgwardConfig.Policy;
import io.pgward.wire.config.Secret;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class PolicyChangeTest {

    private static final Login ANALYST = new Login("a", PgwardConfig.AuthMethod.SCRAM_SHA_256, new Secret("pw"), null,
            "role", new Secret("db"), new Policy(Mode.READ_ONLY, Duration.ofSeconds(30), 100,
            List.of("public.orders", "public.customers"), "be careful"));

    private static Login policy(UnaryOperator<Policy> change) {
        return ANALYST.withPolicy(change.apply(ANALYST.policy()));
    }

    private static String narrowing(Login now) {
        return PolicyChange.narrowing(ANALYST, now, false, false);
    }

    @Test
    void theSameLoginGoesOn() {
        assertNull(narrowing(policy(p -> p)));
        assertNull(narrowing(policy(p -> p.withTables(List.of("orders", "public.customers")).withTables(
                List.of("public.customers", "\"public\".orders")))), "the same names, spelt otherwise");
    }

    @Test
    void provableWideningsGoOn() {
        assertNull(narrowing(policy(p -> p.withTables(List.of("public.orders", "public.customers", "public.items")))));
        assertNull(narrowing(policy(p -> p.withTables(List.of()))), "no selection: every relation the role reads");
        assertNull(narrowing(policy(p -> p.withRowCap(1000))));
        assertNull(narrowing(policy(p -> p.withRowCap(0))), "no cap");
        assertNull(narrowing(policy(p -> p.withStatementTimeout(Duration.ofMinutes(1)))));
        assertNull(narrowing(ANALYST.withPolicy(new Policy(Mode.READ_WRITE, Duration.ofSeconds(30), 0, List.of(),
                null))), "read-only to read-write");
    }

    @Test
    void everyOtherChangeNarrows() {
        assertEquals("login \"a\" was removed", narrowing(null));
        assertEquals("the policy of login \"a\" was narrowed: its table selection lost public.orders",
                narrowing(policy(p -> p.withTables(List.of("public.customers", "public.items")))));
        assertEquals("the policy of login \"a\" was narrowed: its row cap became 99",
                narrowing(policy(p -> p.withRowCap(99))));
        assertEquals("the policy of login \"a\" was narrowed: its statement_timeout became the server's",
                narrowing(policy(p -> p.withStatementTimeout(null))));
        assertEquals("the policy of login \"a\" was narrowed: its rules changed",
                narrowing(policy(p -> new Policy(p.mode(), p.statementTimeout(), p.rowCap(), p.tables(), null))));
        assertEquals("the policy of login \"a\" was narrowed: its authentication changed",
                narrowing(new Login("a", PgwardConfig.AuthMethod.SCRAM_SHA_256, new Secret("new"), null, "role",
                        new Secret("db"), ANALYST.policy())));
        assertEquals("the policy of login \"a\" was narrowed: its database role or password changed",
                narrowing(new Login("a", PgwardConfig.AuthMethod.SCRAM_SHA_256, new Secret("pw"), null, "other",
                        new Secret("db"), ANALYST.policy())));
        Login writer = ANALYST.withPolicy(new Policy(Mode.READ_WRITE, null, 0, List.of(), null));
        assertEquals("the policy of login \"a\" was narrowed: mode read-write became read-only",
                PolicyChange.narrowing(writer, ANALYST.withPolicy(new Policy(Mode.READ_ONLY, null, 0, List.of(),
                        null)), false, false));
        assertEquals("the policy of login \"a\" was narrowed: a table selection was added",
                PolicyChange.narrowing(policy(p -> p.withTables(List.of())), ANALYST, false, false));
    }

    @Test
    void anAdminSessionEndsWhenItsLoginLeavesAdminLogins() {
        assertEquals("login \"a\" was taken out of admin.logins", PolicyChange.narrowing(ANALYST, ANALYST, true,
                false));
        assertNull(PolicyChange.narrowing(ANALYST, ANALYST, true, true));
        assertNull(PolicyChange.narrowing(ANALYST, ANALYST, false, false), "other sessions do not care");
    }
}
