package io.pgward.wire.admin;

import java.util.ArrayList;
import java.util.List;

/**
 * What a reload did: applied or rejected whole.
 *
 * @param error why the file was rejected (the old configuration stays), null when applied
 * @param changes the logins added, removed, changed, and whether running sessions go on
 * @param needsRestart the settings that differ in the file but cannot change while pgward runs (kept as they were)
 * @param sessionsEnded sessions told to end because their login was removed or narrowed
 */
public record ReloadReport(String error, List<String> changes, List<String> needsRestart, int sessionsEnded) {

    public ReloadReport {
        changes = List.copyOf(changes);
        needsRestart = List.copyOf(needsRestart);
    }

    public static ReloadReport rejected(String error) {
        return new ReloadReport(error, List.of(), List.of(), 0);
    }

    public boolean applied() {
        return error == null;
    }

    /** One line each, as RELOAD and {@code pgward reload} show them. */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        if (!applied()) {
            lines.add("configuration rejected, the old one stays: " + error);
            return lines;
        }
        lines.add("configuration reloaded" + (changes.isEmpty() ? ": no login changed" : ""));
        lines.addAll(changes);
        if (sessionsEnded > 0) {
            lines.add(sessionsEnded + " session(s) of removed or narrowed logins end");
        }
        for (String setting : needsRestart) {
            lines.add(setting + " changed in the file: needs restart, the running value stays");
        }
        return lines;
    }
}
