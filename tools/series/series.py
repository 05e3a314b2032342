#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The states of the patch series, derived from the repository's files and
tools/series/manifest (see there for the format and the derivation rules).

Usage:
  series.py list               patch names in series order, one a line
  series.py files              every repository file and its patch
  series.py apply N KTREE      turn the kernel tree KTREE (a git checkout of
                               the state after patch N-1) into the state
                               after patch N (1-based); prints the paths it
                               wrote or deleted, one a line
  series.py verify KTREE       check that KTREE holds every file of the
                               series exactly as the repository has it
  series.py cover COVER BENCH VERSION
                               fill in the cover letter COVER (from git
                               format-patch) with tools/series/cover, the
                               source VERSION and the bench table BENCH

Exits 1 with one line per problem when the manifest does not fit the
repository.
"""

import fnmatch
import os
import re
import subprocess
import sys
import textwrap

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MANIFEST = os.path.join(TOP, "tools", "series", "manifest")
MSG_DIR = os.path.join(TOP, "tools", "series", "msg")
COVER = os.path.join(TOP, "tools", "series", "cover")
FRAGMENT = "MAINTAINERS.fragment"

KCONFIG_KEYWORDS = ("config", "menuconfig", "choice", "endchoice", "comment",
                    "menu", "endmenu", "if", "endif", "source", "mainmenu")
KCONFIG_START = re.compile(r"^(%s)\b" % "|".join(KCONFIG_KEYWORDS))
KCONFIG_SYMBOL = re.compile(r"^(?:menu)?config\s+(\w+)")
KBUILD_ASSIGN = re.compile(r"^(\s*[\w$()-]+\s*[:+?]?=\s*)(.*)$")
COMPOSITE = re.compile(r"^\s*(\w+)-(?:y|objs|\$\(CONFIG_\w+\))\s*[:+]?=",
                       re.M)


class SeriesError(Exception):
    pass


class Patch:
    def __init__(self, name, lineno):
        self.name = name
        self.lineno = lineno
        self.files = []      # globs
        self.remove = []     # globs
        self.kconfig = []    # symbol globs
        self.holds = []      # (file, regex, lineno)


def is_kconfig(path):
    return os.path.basename(path).startswith("Kconfig") and \
        not path.startswith("tools/")


def glob_match(pattern, path):
    if pattern.endswith("/"):
        return path.startswith(pattern)
    return fnmatch.fnmatchcase(path, pattern)


def parse_manifest():
    patches = []
    exclude = []
    errors = []
    with open(MANIFEST, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split(None, 1)
            key, rest = parts[0], parts[1] if len(parts) > 1 else ""
            where = "manifest:%d" % lineno
            if key == "patch":
                if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", rest.strip()):
                    errors.append("%s: bad patch name '%s'" % (where, rest))
                    continue
                patches.append(Patch(rest.strip(), lineno))
            elif key == "exclude":
                exclude += rest.split()
            elif key in ("files", "remove", "kconfig", "hold"):
                if not patches:
                    errors.append("%s: '%s' before any patch" % (where, key))
                elif key == "hold":
                    hold = rest.split(None, 1)
                    if len(hold) != 2:
                        errors.append("%s: hold needs FILE REGEX" % where)
                    else:
                        patches[-1].holds.append((hold[0], hold[1], lineno))
                else:
                    getattr(patches[-1], key).extend(rest.split())
            else:
                errors.append("%s: unknown keyword '%s'" % (where, key))
    names = [p.name for p in patches]
    for name in set(names):
        if names.count(name) > 1:
            errors.append("manifest: patch '%s' appears twice" % name)
    if errors:
        raise SeriesError("\n".join(errors))
    return patches, exclude


def repo_files():
    out = subprocess.run(["git", "-C", TOP, "ls-files", "-z", "--cached",
                          "--others", "--exclude-standard"],
                         check=True, stdout=subprocess.PIPE).stdout
    files = set()
    for path in out.decode().split("\0"):
        full = os.path.join(TOP, path)
        if path and os.path.isfile(full) and not os.path.islink(full):
            files.add(path)
    return sorted(files)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class Series:
    """The manifest applied to the repository's files."""

    def __init__(self):
        self.patches, self.exclude = parse_manifest()
        self.owner = {}          # repository file -> patch index
        errors = []
        files = repo_files()
        used = set()
        for path in files:
            if any(glob_match(g, path) for g in self.exclude):
                continue
            hits = []
            for i, patch in enumerate(self.patches):
                for g in patch.files:
                    if glob_match(g, path):
                        hits.append(i)
                        used.add((i, g))
            hits = sorted(set(hits))
            if not hits:
                errors.append("%s is in no patch: add it to a 'files' line "
                              "of tools/series/manifest, or to 'exclude'"
                              % path)
            elif len(hits) > 1:
                errors.append("%s is in patches %s: it may be in only one"
                              % (path, ", ".join(self.patches[i].name
                                                 for i in hits)))
            else:
                self.owner[path] = hits[0]
        for i, patch in enumerate(self.patches):
            for g in patch.files:
                if (i, g) not in used:
                    errors.append("manifest: patch %s: '%s' matches no file"
                                  % (patch.name, g))
            msg = os.path.join(MSG_DIR, patch.name)
            if not os.path.isfile(msg):
                errors.append("patch %s has no commit message: "
                              "tools/series/msg/%s" % (patch.name, patch.name))
        self.kconfig_owner = {}  # (Kconfig path, symbol) -> patch index
        for path, i in self.owner.items():
            if is_kconfig(path):
                for line in read(os.path.join(TOP, path)).splitlines():
                    m = KCONFIG_SYMBOL.match(line)
                    if m:
                        self.kconfig_owner[(path, m.group(1))] = i
        claimed = {}
        for j, patch in enumerate(self.patches):
            for g in patch.kconfig:
                hits = [key for key in self.kconfig_owner
                        if fnmatch.fnmatchcase(key[1], g)]
                if not hits:
                    errors.append("manifest: patch %s: Kconfig symbol '%s' "
                                  "is defined nowhere" % (patch.name, g))
                for key in hits:
                    if self.owner[key[0]] > j:
                        errors.append("manifest: patch %s: %s comes before "
                                      "its Kconfig file" % (patch.name, key[1]))
                    if claimed.get(key, j) != j:
                        errors.append("manifest: %s is claimed by patches %s "
                                      "and %s" % (key[1],
                                                  self.patches[claimed[key]].name,
                                                  patch.name))
                    claimed[key] = j
                    self.kconfig_owner[key] = j
            for path, regex, lineno in patch.holds:
                where = "manifest:%d" % lineno
                if path not in self.owner:
                    errors.append("%s: %s is no file of the series"
                                  % (where, path))
                    continue
                if self.owner[path] >= j:
                    errors.append("%s: %s comes with this patch or a later "
                                  "one: nothing to hold" % (where, path))
                try:
                    n = len(re.findall(regex, read(os.path.join(TOP, path)),
                                       re.M))
                except re.error as e:
                    errors.append("%s: bad regex: %s" % (where, e))
                    continue
                if n != 1:
                    errors.append("%s: the regex matches %s %d times, not "
                                  "once" % (where, path, n))
        if errors:
            raise SeriesError("\n".join(errors))

    def files_upto(self, n):
        """Kernel paths of the repository files of patches 1..n."""
        return {p for p, i in self.owner.items() if i < n and p != FRAGMENT}

    def content(self, path, n):
        """The content of repository file PATH after patch N."""
        text = read(os.path.join(TOP, path))
        for j, patch in enumerate(self.patches):
            if j < n:
                continue
            for hpath, regex, _ in patch.holds:
                if hpath == path:
                    text = re.sub(regex, "", text, flags=re.M)
        if is_kconfig(path):
            later = {sym for (kpath, sym), i in self.kconfig_owner.items()
                     if kpath == path and i >= n}
            if later:
                text = kconfig_without(text, later)
        return text


def kconfig_without(text, symbols):
    """TEXT without the entries of SYMBOLS (and choices left empty)."""
    chunks = [[]]
    for line in text.splitlines(keepends=True):
        if KCONFIG_START.match(line):
            # comment lines right above an entry belong to it
            moved = []
            prev = chunks[-1]
            while prev and prev[-1].startswith("#") and \
                    len(chunks) > 1:
                moved.insert(0, prev.pop())
            chunks.append(moved)
        chunks[-1].append(line)

    def keyword(chunk):
        for line in chunk:
            m = KCONFIG_START.match(line)
            if m:
                return m.group(1)
        return None

    def symbol(chunk):
        for line in chunk:
            m = KCONFIG_SYMBOL.match(line)
            if m:
                return m.group(1)
        return None

    keep = [not (keyword(c) in ("config", "menuconfig") and
                 symbol(c) in symbols) for c in chunks]
    stack = []
    for i, chunk in enumerate(chunks):
        if keyword(chunk) == "choice":
            stack.append(i)
        elif keyword(chunk) == "endchoice" and stack:
            start = stack.pop()
            inner = [k for k in range(start + 1, i)
                     if keyword(chunks[k]) in ("config", "menuconfig")]
            if inner and not any(keep[k] for k in inner):
                keep[start] = keep[i] = False
    out = "".join("".join(c) for c, k in zip(chunks, keep) if k)
    return out.rstrip("\n") + "\n"


def kbuild_without_missing(text, directory):
    """TEXT of a kbuild Makefile in DIRECTORY without the objects whose
    source is not there; assignments left empty go, with their comment."""
    composites = set(COMPOSITE.findall(text))

    def present(token):
        if not token.endswith(".o"):
            return True
        stem = token[:-2]
        return stem in composites or any(
            os.path.exists(os.path.join(directory, stem + ext))
            for ext in (".c", ".S"))

    lines = text.splitlines()
    out = []
    i = 0
    while i < len(lines):
        logical = [lines[i]]
        while logical[-1].endswith("\\") and i + 1 < len(lines):
            i += 1
            logical.append(lines[i])
        i += 1
        m = KBUILD_ASSIGN.match(logical[0])
        tokens = " ".join(l.rstrip("\\") for l in logical).split()
        if not m or all(present(t) for t in tokens):
            out.extend(logical)
            continue
        kept = []
        for n, line in enumerate(logical):
            body = line.rstrip("\\").rstrip()
            prefix = ""
            if n == 0:
                prefix = m.group(1)
                body = m.group(2).rstrip("\\").rstrip()
            else:
                prefix = line[:len(line) - len(line.lstrip())]
            words = [w for w in body.split() if present(w)]
            if words:
                kept.append(prefix + " ".join(words))
            elif n == 0:
                kept.append(prefix.rstrip())
        if len(kept) == 1 and not kept[0].split("=", 1)[1].strip():
            while out and out[-1].lstrip().startswith("#"):
                out.pop()
            continue
        if not kept[0].split("=", 1)[1].strip() and len(kept) > 1:
            kept[0] = kept[0] + " " + kept.pop(1).strip()
        out.extend(l + " \\" for l in kept[:-1])
        out.append(kept[-1])
    text = "\n".join(out)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.rstrip("\n") + "\n"


def maintainers_with(pristine, fragment, covered):
    """PRISTINE MAINTAINERS with FRAGMENT inserted in alphabetical order,
    keeping only its F: patterns that cover a path of COVERED."""
    entry = []
    for line in fragment.splitlines():
        if line.startswith("F:"):
            pattern = line[2:].strip()
            if not any(pattern_covers(pattern, p) for p in covered):
                continue
        entry.append(line)
    title = entry[0]
    lines = pristine.splitlines()
    field = re.compile(r"^[A-Z]:\t")

    def key(t):
        return t.upper().replace("THE REST", "ZZZZZZ")

    at = None
    for i in range(1, len(lines) - 1):
        if lines[i - 1] == "" and lines[i] and not field.match(lines[i]) \
                and field.match(lines[i + 1]):
            if key(lines[i]) > key(title):
                at = i
                break
    if at is None:
        raise SeriesError("MAINTAINERS: no place for '%s'" % title)
    lines[at:at] = entry + [""]
    return "\n".join(lines) + "\n"


def pattern_covers(pattern, path):
    if pattern.endswith("/"):
        return path.startswith(pattern)
    return fnmatch.fnmatchcase(path, pattern) or \
        path.startswith(pattern.rstrip("/") + "/")


def git(ktree, *args):
    return subprocess.run(["git", "-C", ktree] + list(args), check=True,
                          stdout=subprocess.PIPE).stdout.decode()


def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def apply(series, n, ktree):
    if not 1 <= n <= len(series.patches):
        raise SeriesError("no patch %d" % n)
    mine = series.files_upto(n)
    touched = set(mine)
    tracked = git(ktree, "ls-files", "-z").split("\0")
    for patch in series.patches[:n]:
        for g in patch.remove:
            gone = [p for p in tracked if glob_match(g, p) and p not in mine]
            for p in gone:
                os.unlink(os.path.join(ktree, p))
                touched.add(p)
    for path in sorted(mine):
        write(os.path.join(ktree, path), series.content(path, n))
    for path in sorted(mine):
        name = os.path.basename(path)
        if name in ("Makefile", "Kbuild") and not path.startswith("tools/"):
            full = os.path.join(ktree, path)
            write(full, kbuild_without_missing(read(full),
                                               os.path.dirname(full)))
    if FRAGMENT in series.owner and series.owner[FRAGMENT] < n:
        pristine = git(ktree, "show", "pristine:MAINTAINERS")
        write(os.path.join(ktree, "MAINTAINERS"),
              maintainers_with(pristine, read(os.path.join(TOP, FRAGMENT)),
                               mine))
        touched.add("MAINTAINERS")
    return sorted(touched)


def verify(series, ktree):
    bad = []
    for path in sorted(series.files_upto(len(series.patches))):
        full = os.path.join(ktree, path)
        if not os.path.isfile(full) or read(full) != read(os.path.join(TOP,
                                                                     path)):
            bad.append("%s differs from the repository's" % path)
    if FRAGMENT in series.owner:
        body = [l for l in read(os.path.join(TOP, FRAGMENT)).splitlines()
                if not l.startswith("F:")]
        have = read(os.path.join(ktree, "MAINTAINERS"))
        if "\n".join(body[:2]) not in have:
            bad.append("MAINTAINERS lacks the entry of %s" % FRAGMENT)
    if bad:
        raise SeriesError("\n".join(bad))


def cover(path, bench, version):
    subject, _, blurb = read(COVER).partition("\n\n")
    upstream = version.split("-")[0]            # 7.3.4
    major = ".".join(upstream.split(".")[:2])   # 7.3
    base = ("The series is for Linux %s: it applies with git am to "
            "Debian's linux-source-%s %s (Linux %s with Debian's patches)."
            % (major, major, version, upstream))
    blurb = blurb.strip("\n") + "\n\n" + \
        textwrap.fill(base, 72, break_on_hyphens=False) + "\n\n"
    blurb += ("Benchmarks (tools/bench, %s):\n\n%s"
              % (os.path.relpath(bench, TOP), read(bench).rstrip("\n")))
    text = read(path)
    for placeholder, value in (("*** SUBJECT HERE ***", subject.strip()),
                               ("*** BLURB HERE ***", blurb)):
        if text.count(placeholder) != 1:
            raise SeriesError("%s: no '%s'" % (path, placeholder))
        text = text.replace(placeholder, value)
    write(path, text)


def main(argv):
    usage = __doc__.split("\n\n")[1]
    if len(argv) < 2:
        sys.stderr.write(usage + "\n")
        return 2
    try:
        series = Series()
        if argv[1] == "list" and len(argv) == 2:
            for patch in series.patches:
                print(patch.name)
        elif argv[1] == "files" and len(argv) == 2:
            for path in sorted(series.owner):
                print("%-12s %s" % (series.patches[series.owner[path]].name,
                                    path))
        elif argv[1] == "apply" and len(argv) == 4:
            for path in apply(series, int(argv[2]), argv[3]):
                print(path)
        elif argv[1] == "verify" and len(argv) == 3:
            verify(series, argv[2])
        elif argv[1] == "cover" and len(argv) == 5:
            cover(argv[2], argv[3], argv[4])
        else:
            sys.stderr.write(usage + "\n")
            return 2
    except SeriesError as e:
        for line in str(e).splitlines():
            sys.stderr.write("[series] %s\n" % line)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
