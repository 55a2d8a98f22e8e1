package io.pgward.guard.catalog;

import java.util.Arrays;

/**
 * The names a node tree repeats, node tags and field labels, as one string each: a tree of a few kilobytes holds
 * hundreds of them from a vocabulary of a few hundred, and reading it should not make and hash a new string for
 * each. The strings are interned, so a field looked up by a constant in the code is found by identity.
 *
 * <p>A direct-mapped cache: a name whose slot holds another is made anew and takes the slot. Threads share it
 * without locks: an entry is immutable, safe to publish through a plain array store (its fields are final), and a
 * lost store only costs a miss. Its size is fixed, whatever the trees hold.
 */
final class TreeNames {

    private static final int SLOTS = 4096;
    private static final Name[] CACHE = new Name[SLOTS];

    /** A name, and its characters to compare a part of a tree's text with. */
    private record Name(String name, char[] chars) {
    }

    private TreeNames() {
    }

    /** text[from, to) as a string, the same one for the same name. */
    static String of(char[] text, int from, int to) {
        int hash = 0;
        for (int i = from; i < to; i++) {
            hash = 31 * hash + text[i];
        }
        int slot = (hash ^ hash >>> 16) & (SLOTS - 1);
        Name cached = CACHE[slot];
        if (cached != null && Arrays.equals(cached.chars, 0, cached.chars.length, text, from, to)) {
            return cached.name;
        }
        String name = new String(text, from, to - from).intern();
        CACHE[slot] = new Name(name, name.toCharArray());
        return name;
    }
}
