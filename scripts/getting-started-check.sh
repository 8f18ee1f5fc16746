#!/usr/bin/env bash
# Builds docs/getting-started.md's project as a new user would: its pom.xml and its Java classes, copied from the
# page into an empty directory, compiled with this machine's Maven against the Once artifacts installed in the
# local repository (scripts/test.sh installs them first). A pom or a class on the page that does not compile
# fails the run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
python3 - "$root/docs/getting-started.md" "$dir" <<'PY'
import os, re, sys
page, out = sys.argv[1], sys.argv[2]
blocks = re.findall(r"```(\w+)\n(.*?)```", open(page, encoding="utf-8").read(), re.S)
poms = [b for lang, b in blocks if lang == "xml" and "<project" in b]
classes = [b for lang, b in blocks if lang == "java" and b.startswith("package ")]
if len(poms) != 1 or not classes:
    sys.exit(f"{page}: expected one pom.xml and at least one class, found {len(poms)} and {len(classes)}")
open(os.path.join(out, "pom.xml"), "w", encoding="utf-8").write(poms[0])
for source in classes:
    package = re.match(r"package ([\w.]+);", source).group(1)
    name = re.search(r"^public (?:final )?(?:class|record|interface) (\w+)", source, re.M).group(1)
    folder = os.path.join(out, "src/main/java", *package.split("."))
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, name + ".java"), "w", encoding="utf-8").write(source)
    print(f"  {package}.{name}")
PY
(cd "$dir" && mvn -B -q compile)
echo "docs/getting-started.md: its project compiles"
