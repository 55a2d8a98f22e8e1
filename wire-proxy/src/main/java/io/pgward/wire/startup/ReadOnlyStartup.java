package io.pgward.wire.startup;

import io.pgward.guard.Verdict;
import io.pgward.guard.classify.ReadOnlyPolicy;
import io.pgward.guard.classify.StartupSettingRules;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.pool.PinnedSettings;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The backend startup parameters of a read-only login, from what its client sent.
 *
 * <p>Every setting the client gives ({@link StartupSettings}: packet keys in any case, {@code -c} and {@code --}
 * in {@code options}) is judged as {@code SET name = 'value'} would be judged in the session
 * ({@link StartupSettingRules}). One that would be refused ends the login with FATAL 42501; a client_encoding
 * other than UTF8 with FATAL 0A000; so does any other switch in {@code options}. The settings the policy owns
 * (client_encoding, standard_conforming_strings, default_transaction_read_only, transaction_read_only,
 * statement_timeout) are accepted only with the policy's value and then left out: the backend gets pgward's
 * {@link PinnedSettings} instead, and no {@code options} at all. What remains are the allowed client settings
 * under their lower-case names, the last value of each, as PostgreSQL would apply them.
 *
 * <p>With a table selection, client_min_messages is pinned too (the backend role's or database's own level could
 * be LOG or DEBUG): at notice, or at the level the client asked for, which the rule above allows only from info
 * up. Without a selection the client's level passes like any other setting.
 */
final class ReadOnlyStartup {

    /** Settings the policy owns: given by the client only with the policy's value, and then replaced by the pin. */
    private static final Set<String> OWNED = Set.of("client_encoding", "standard_conforming_strings",
            "default_transaction_read_only", "transaction_read_only", "statement_timeout");

    private ReadOnlyStartup() {
    }

    /** The outcome: the backend's parameters and pins, or the FATAL that ends the login. */
    sealed interface Outcome {
    }

    record Accepted(Map<String, String> parameters, PinnedSettings pins) implements Outcome {
    }

    record Refused(PgError error, String rule) implements Outcome {
    }

    static Outcome decide(List<Map.Entry<String, String>> pairs, PgwardConfig.Login login) {
        StartupSettings read = StartupSettings.read(pairs);
        if (!read.otherSwitches().isEmpty()) {
            return new Refused(PgError.fatal(SqlState.INSUFFICIENT_PRIVILEGE, "pgward does not accept \""
                    + read.otherSwitches().getFirst() + "\" in options for the read-only login \"" + login.name()
                    + "\": options may only hold settings (-c name=value or --name=value)"), "startup-options");
        }
        Map<String, String> client = new LinkedHashMap<>();
        Long timeout = login.policy().statementTimeout() == null ? null
                : login.policy().statementTimeout().toMillis();
        boolean selection = !login.policy().tables().isEmpty();
        // Judged as the session judges SET: a level below NOTICE is refused only with a table selection.
        ReadOnlyPolicy policy = new ReadOnlyPolicy(login.name(), login.policy().statementTimeout(), selection
                ? ReadOnlyPolicy.CatalogFunctions.GATED : ReadOnlyPolicy.CatalogFunctions.UNRESTRICTED);
        String messages = selection ? PinnedSettings.SELECTION_MESSAGE_LEVEL : null;
        for (StartupSettings.Setting setting : read.settings()) {
            String key = setting.key();
            if (key.equals("client_encoding") && !StartupSettingRules.isUtf8(setting.value())) {
                return new Refused(PgError.fatal(SqlState.FEATURE_NOT_SUPPORTED, "pgward does not accept "
                        + "client_encoding \"" + setting.value() + "\" for the read-only login \"" + login.name()
                        + "\": statements in it cannot be checked reliably; use UTF8"), "client-encoding");
            }
            if (StartupSettingRules.judge(key, setting.value(), policy) instanceof Verdict.Refuse refuse) {
                return new Refused(new PgError("FATAL", SqlState.INSUFFICIENT_PRIVILEGE, "pgward does not accept "
                        + "the setting " + setting + " (" + setting.source() + ") for the read-only login \""
                        + login.name() + "\"", "It is judged as SET " + setting.name() + " = '" + setting.value()
                        + "' would be: " + refuse.message(), null, 0), refuse.rule());
            }
            if (key.equals("statement_timeout") && timeout != null) {
                // Allowed means at most the login's timeout and not 0: the client may only lower it.
                Long ms = StartupSettingRules.milliseconds(setting.value());
                timeout = ms != null && ms > 0 && ms <= login.policy().statementTimeout().toMillis() ? ms : timeout;
            } else if (key.equals("client_min_messages") && selection) {
                // Allowed means info or above: the client's level replaces notice, as its SET would.
                messages = setting.value().toLowerCase(Locale.ROOT);
            } else if (!OWNED.contains(key)) {
                client.remove(key);
                client.put(key, setting.value());
            }
        }
        PinnedSettings pins = new PinnedSettings(timeout, messages);
        Map<String, String> parameters = new LinkedHashMap<>(client);
        parameters.putAll(pins.startupParameters());
        if (timeout == null) {
            // No timeout in the policy: the client's choice passes, as SET statement_timeout would.
            read.settings().stream().filter(s -> s.key().equals("statement_timeout")).reduce((a, b) -> b)
                    .ifPresent(s -> parameters.put("statement_timeout", s.value()));
        }
        return new Accepted(parameters, pins);
    }
}
