#!/bin/sh
# Builds the kconnect Java plugin host: OUT_DIR/plugin-host.jar (main class dev.kconnect.host.PluginHost).
#
#   java/plugin-host/build.sh OUT_DIR [CLASSPATH]
#
# CLASSPATH (':'-separated) must hold exactly the host's compile and run-time dependencies:
# connect-api-4.1.2.jar, kafka-clients-4.1.2.jar and slf4j-api (the version connect-api 4.1.2
# brings, 1.7.36). Without it, they are resolved from Maven Central with kconnect's
# kconnect.local.maven.resolve_classpath (PYTHON, default python3, must import kconnect: the
# repository's src/ is put on PYTHONPATH).
#
# The two commands the Python side reproduces are the javac and jar lines at the end. Run the
# host with:  java -cp OUT_DIR/plugin-host.jar:CLASSPATH dev.kconnect.host.PluginHost
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build.sh OUT_DIR [CLASSPATH]}
classpath=${2:-}

if [ -z "$classpath" ]; then
    classpath=$(PYTHONPATH="$here/../../src${PYTHONPATH:+:$PYTHONPATH}" "${PYTHON:-python3}" -c '
from kconnect.local.maven import resolve_classpath
jars = resolve_classpath(["org.apache.kafka:connect-api:4.1.2"])
wanted = ("connect-api-", "kafka-clients-", "slf4j-api-")
print(":".join(str(j) for j in jars if j.name.startswith(wanted)))
')
fi

mkdir -p "$out"
rm -rf "$out/classes"
mkdir -p "$out/classes"
# shellcheck disable=SC2046  # the source list is split on purpose (no spaces in these paths)
javac --release 17 -encoding UTF-8 -Xlint:all,-try -cp "$classpath" -d "$out/classes" \
    $(find "$here/src/main/java" -name '*.java' | LC_ALL=C sort)
jar --create --file "$out/plugin-host.jar" -C "$out/classes" .
echo "$out/plugin-host.jar"
