#!/usr/bin/env bash
# Builds the root file system under pgward's image: a Java runtime made with jlink from the build JDK and the
# few shared libraries it and pgward's native libraries need (glibc, libstdc++, libgcc_s), taken from Debian
# packages, plus the user the image runs as. No base image is pulled, so the image builds without a container
# registry; Jib lays it on `scratch`.
#
#   base-root.sh OUT_DIR
#
# The Debian packages are downloaded once with `apt-get download` (apt checks them against the signed
# archive index) and kept in ${PGWARD_CACHE:-~/.cache/pgward}/image-debs, the jlinked runtime in
# .../image-runtime; later builds use them offline. To take newer Debian packages (a glibc security fix),
# delete image-debs. The versions that went in are written to OUT_DIR/usr/share/pgward/base-packages.
set -euo pipefail

out=${1:?usage: base-root.sh OUT_DIR}
java_home=${JAVA_HOME:?JAVA_HOME must name the JDK whose runtime goes into the image}
cache=${PGWARD_CACHE:-$HOME/.cache/pgward}/image-debs

# What `jdeps --print-module-deps` reports for pgward-app.jar and its lib/ (jdk.httpserver: the metrics listener,
# /metrics, /livez and /readyz), plus modules reached only by reflection or service loading: DNS over JNDI (Netty's
# resolver), zip file systems, SASL (pgjdbc's GSS), the extended charsets (client encodings), jdk.management (the
# process and GC meters). ImageRunsIT starts the image with the metrics listener on; a module missing here is a
# NoClassDefFoundError there.
modules=java.base,java.compiler,java.desktop,java.management,java.naming,java.net.http,java.security.jgss
modules=$modules,java.security.sasl,java.sql,jdk.charsets,jdk.crypto.ec,jdk.httpserver,jdk.jfr,jdk.management
modules=$modules,jdk.naming.dns,jdk.unsupported,jdk.zipfs
# glibc for the JVM; libstdc++ and libgcc_s for ONNX Runtime and the tokenizer of the NL extension.
packages=(libc6 libstdc++6 libgcc-s1)
libs=(ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1
      libstdc++.so.6 libgcc_s.so.1)

if [ "$(uname -m)" != x86_64 ]; then
    echo "base-root.sh: the image is built for linux/amd64 only, and this machine is $(uname -m)" >&2
    exit 1
fi

# Builds of several checkouts share the cache: everything lands in a directory of its own first and is moved in
# whole, so no build sees another's half-written file.
mkdir -p "$cache"
for pkg in "${packages[@]}"; do
    if ! compgen -G "$cache/${pkg}_*_amd64.deb" >/dev/null; then
        command -v apt-get >/dev/null || { echo "base-root.sh: $pkg is not in $cache and there is no apt-get to download it" >&2; exit 1; }
        download=$(mktemp -d "$cache/.download.XXXXXX")
        (cd "$download" && apt-get download -q "$pkg:amd64" >/dev/null 2>&1) \
            || { rm -rf "$download"; echo "base-root.sh: apt-get download $pkg failed (try apt-get update)" >&2; exit 1; }
        mv "$download"/*.deb "$cache"/
        rm -rf "$download"
    fi
done

rm -rf "$out"
mkdir -p "$out"/{lib/x86_64-linux-gnu,lib64,etc,tmp,opt,usr/share/pgward}
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
: >"$out/usr/share/pgward/base-packages"
# Image scanners (Trivy, Grype) find Debian packages in /var/lib/dpkg/status.d, one control file per package,
# and the distribution in /etc/os-release: without them the glibc in the image would go unreported.
mkdir -p "$out/var/lib/dpkg/status.d"
for pkg in "${packages[@]}"; do
    deb=$(ls "$cache/${pkg}"_*_amd64.deb | sort -V | tail -1)
    dpkg-deb -x "$deb" "$unpacked"
    basename "$deb" .deb >>"$out/usr/share/pgward/base-packages"
    { dpkg-deb -f "$deb"; echo "Status: install ok installed"; } >"$out/var/lib/dpkg/status.d/$pkg"
done
# apt-get downloaded them from this machine's distribution.
grep -E '^(PRETTY_NAME|NAME|ID|VERSION_ID|VERSION_CODENAME)=' /etc/os-release >"$out/etc/os-release"
for lib in "${libs[@]}"; do
    # -L: Debian ships some of these as symbolic links to the versioned file; the image holds plain files.
    src=$(find "$unpacked" -name "$lib" \( -type f -o -type l \) | head -1)
    [ -n "$src" ] || { echo "base-root.sh: $lib is in none of ${packages[*]}" >&2; exit 1; }
    cp -L "$src" "$out/lib/x86_64-linux-gnu/$lib"
done
# The JVM's program interpreter is /lib64/ld-linux-x86-64.so.2.
cp "$out/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" "$out/lib64/"

# jlink takes most of this script's time, and its output depends only on the JDK and the modules: keep it.
runtime_key=$( (cat "$java_home/release"; echo "$modules") | sha256sum | cut -c1-16)
runtime=${PGWARD_CACHE:-$HOME/.cache/pgward}/image-runtime/$runtime_key
if [ ! -x "$runtime/bin/java" ]; then
    mkdir -p "$(dirname "$runtime")"
    partial=$(mktemp -d "$runtime.partial.XXXXXX")
    "$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
        --compress zip-6 --output "$partial/java"
    # Another build may have got there first; its runtime is the same.
    mv -T "$partial/java" "$runtime" 2>/dev/null || [ -x "$runtime/bin/java" ]
    rm -rf "$partial"
fi
cp -a "$runtime" "$out/opt/java"

# A numeric user without a shell or a home of its own: Java reads its name and home from /etc/passwd.
cat >"$out/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
pgward:x:65532:65532:pgward:/tmp:/sbin/nologin
PASSWD
cat >"$out/etc/group" <<'GROUP'
root:x:0:
pgward:x:65532:
GROUP
# Files resolve before DNS, as in any glibc system; without this glibc would still work, but say why it did.
echo 'hosts: files dns' >"$out/etc/nsswitch.conf"
