#!/usr/bin/env bash
# Builds the C# client, its conformance runner and its tests with Mono's mcs into OUT (default
# clients/csharp/build): Foyer.dll, foyer-conformance.exe, foyer-client-tests.exe and a copy of
# Newtonsoft.Json.dll beside them (Debian: libnewtonsoft-json-cil-dev).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/build}"
newtonsoft="${NEWTONSOFT_JSON_DLL:-/usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll}"
mkdir -p "$out"
cp "$newtonsoft" "$out/Newtonsoft.Json.dll"
refs=(-r:System.Net.Http.dll "-r:$out/Newtonsoft.Json.dll")
mcs -nologo -warnaserror+ -target:library "${refs[@]}" -out:"$out/Foyer.dll" "$here"/src/Foyer/*.cs
mcs -nologo -warnaserror+ "${refs[@]}" "-r:$out/Foyer.dll" -out:"$out/foyer-conformance.exe" "$here"/conformance/*.cs
mcs -nologo -warnaserror+ "${refs[@]}" "-r:$out/Foyer.dll" -out:"$out/foyer-client-tests.exe" \
  "$here"/tests/*.cs "$here"/conformance/{Match,PlayerTokens,Runner,Scenarios,ScenarioSocket}.cs
