# Sourced by ./pgward and .ci/run: makes JAVA_HOME point at a JDK 21 or newer.
# Keeps a JAVA_HOME (or the java on PATH) that is new enough; otherwise takes the newest JDK found in the
# usual install places. Fails with a message that says what to install when there is none.

pgward_java_major() {
    "$1/bin/java" -XshowSettings:properties -version 2>&1 \
        | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
}

pgward_select_jdk() {
    local candidate best="" best_major=0 major
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
        major=$(pgward_java_major "$JAVA_HOME")
        if [ "${major:-0}" -ge 21 ]; then return 0; fi
    fi
    if command -v javac >/dev/null 2>&1; then
        candidate=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
        major=$(pgward_java_major "$candidate")
        if [ "${major:-0}" -ge 21 ]; then export JAVA_HOME="$candidate"; return 0; fi
    fi
    for candidate in /usr/lib/jvm/* /Library/Java/JavaVirtualMachines/*/Contents/Home \
                     "$HOME"/.sdkman/candidates/java/* "$HOME"/.jdks/*; do
        [ -x "$candidate/bin/javac" ] || continue
        major=$(pgward_java_major "$candidate")
        if [ "${major:-0}" -gt "$best_major" ]; then best="$candidate"; best_major="$major"; fi
    done
    if [ "$best_major" -ge 21 ]; then export JAVA_HOME="$best"; return 0; fi
    echo "pgward needs a JDK 21 or newer and found none (newest found: ${best_major:-none})." >&2
    echo "Install one (e.g. apt-get install openjdk-21-jdk) or set JAVA_HOME to it." >&2
    return 1
}

pgward_select_jdk
