#!/usr/bin/env python3
"""Checks the README's Install snippet as a user meets it: a consumer package with the README's
manifest resolves Courier from this checkout, and `import Courier` builds.

    python3 .ci/install.py                  # resolve as written, build with `traits: []` (~2 min)
    python3 .ci/install.py --default-traits # build with the README's manifest as written (~7 min)

1. Reads the manifest of README.md's "## Install" section (its first ```swift block) and its one
   `.package(url: "…", <requirement>)`, and the section's versioned form: the one other
   `.package(url:` of Courier there, for after the first release tag. Every other
   `.package(url:` of Courier in README.md and Documentation/*.md must use the snippet's
   requirement.
2. Copies the checkout as it is on disk (tracked and untracked files, not the ignored ones) to a
   temporary folder named `courier`, the identity the README's `package: "courier"` names, and
   commits it on a branch `main` in a repository of its own, without tags: the repository as a
   user finds it before any release is tagged.
3. Writes the consumer: the README's manifest with the URL replaced by that folder's path, and
   .ci/consumer/Consumer.swift (`import Courier`, the README's first call) as App's one file.
4. `swift package resolve` with the manifest exactly as the README has it.
5. `swift build` with `traits: []` added to the `.package(…)` (unless the README passes `traits:`
   itself, or with --default-traits): on 2 cores a consumer's clean build takes about 7 minutes
   with the default traits (async-http-client, SwiftNIO, BoringSSL) and under 2 with `traits: []`.
   What this step checks, that the product builds from outside with the README's layout, does
   not depend on the traits; CI's own build compiles the default traits' code.
6. Tags the copy with the library's version (`CourierLibrary.version`, the one its User-Agent
   sends) and resolves the versioned form: it fails when that form does not admit the version the
   package says it is.
7. Takes an empty package through Documentation/OpenAPI.md's "From an empty package to a first
   call" as written (unless --no-openapi): its manifest (Courier's URL replaced by the copy, with
   `traits: []`), each block whose first line names its file (`// Sources/App/main.swift`,
   `# Sources/MyAPI/openapi-generator-config.yaml`), and the demo's document next to the
   generator's configuration; then `swift build --build-tests` (swift-openapi-generator's plugin
   generates the client) and `swift test`. A warning outside the generated files fails the step;
   the generated files' own are counted (about 2.5 minutes, most of it building the generator).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
VERSION_FILE = os.path.join("Sources", "Courier", "Client", "CourierLibrary.swift")
CONSUMER_SOURCE = os.path.join(".ci", "consumer", "Consumer.swift")
OPENAPI_GUIDE = os.path.join("Documentation", "OpenAPI.md")
OPENAPI_STEPS = "From an empty package to a first call"
OPENAPI_DOCUMENT = os.path.join("Example", "DemoAPIClient", "openapi.yaml")
# A `.package(url: "…/courier.git", <requirement>)` of Courier itself, in any guide.
COURIER_PACKAGE = re.compile(r'\.package\(url:\s*"[^"]*/courier\.git",\s*(.*)\)')


class InstallError(Exception):
    pass


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as file:
        return file.read()


def library_version():
    match = re.search(r'static let version = "(\d+\.\d+\.\d+)"', read(VERSION_FILE))
    if not match:
        raise InstallError(f"no `static let version = \"X.Y.Z\"` in {VERSION_FILE}")
    return match.group(1)


def install_section():
    """The match of README.md's "## Install" section: its text is group 1."""
    section = re.search(r"^## Install\n(.*?)(?=^## )", read("README.md"), re.S | re.M)
    if not section:
        raise InstallError("README.md has no '## Install' section")
    return section


def install_manifest():
    """The README's Install manifest, and its `.package(` call of Courier."""
    block = re.search(r"^```swift\n(.*?)^```", install_section().group(1), re.S | re.M)
    if not block or "// swift-tools-version" not in block.group(1):
        raise InstallError("README.md's Install section does not start with a Package.swift block")
    manifest = block.group(1)
    calls = [call for call in package_calls(manifest)]
    if len(calls) != 1:
        raise InstallError(f"README.md's Install manifest has {len(calls)} `.package(` calls, not one")
    return manifest, calls[0]


def package_calls(text):
    """Each `.package(…)` call in `text`, as (start, end) of the whole call, parentheses balanced."""
    for match in re.finditer(r"\.package\(", text):
        depth, index = 0, match.end() - 1
        in_string = False
        while index < len(text):
            char = text[index]
            if char == '"':
                in_string = not in_string
            elif not in_string and char == "(":
                depth += 1
            elif not in_string and char == ")":
                depth -= 1
                if depth == 0:
                    yield (match.start(), index + 1)
                    break
            index += 1


def requirement(call):
    match = COURIER_PACKAGE.fullmatch(call)
    if not match:
        raise InstallError(f"not a `.package(url: \"…/courier.git\", …)`: {call}")
    # The requirement alone, without a `traits:` argument.
    return re.sub(r",\s*traits:.*$", "", match.group(1), flags=re.S)


def versioned_requirement(manifest_call):
    """The Install section's versioned form: its one `.package(url:` of Courier besides the manifest's."""
    section = install_section().group(1)
    calls = [section[start:end] for start, end in package_calls(section)]
    others = {requirement(call) for call in calls if "/courier.git" in call} - {requirement(manifest_call)}
    if len(others) != 1:
        raise InstallError(f"README.md's Install section should show one versioned form besides the snippet, found {sorted(others)}")
    return others.pop()


def check_guides_agree(expected, versioned):
    """Every `.package(url:` of Courier in the README and the guides uses the Install requirement
    (the Install section also shows the versioned form)."""
    guides = ["README.md"] + sorted(
        os.path.join("Documentation", name) for name in os.listdir(os.path.join(ROOT, "Documentation")) if name.endswith(".md")
    )
    install = install_section().span(1)
    mismatches = []
    for guide in guides:
        text = read(guide)
        for start, end in package_calls(text):
            call = text[start:end]
            if "/courier.git" not in call or requirement(call) == expected:
                continue
            if guide == "README.md" and install[0] <= start < install[1] and requirement(call) == versioned:
                continue
            mismatches.append(f"  {guide}: {call}")
    if mismatches:
        raise InstallError(f"these use another requirement than the Install snippet's `{expected}`:\n" + "\n".join(mismatches))


def snapshot(destination):
    """The checkout as it is on disk, committed on a branch `main` in a repository of its own, untagged."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True, capture_output=True
    ).stdout.decode()
    for path in filter(None, listed.split("\0")):
        source = os.path.join(ROOT, path)
        if not os.path.lexists(source):
            continue  # deleted and not yet committed
        target = os.path.join(destination, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    git = ["git", "-c", "user.name=install-check", "-c", "user.email=install-check@localhost", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run(git + args, cwd=destination, check=True)
    return git


def run(args, cwd, temporary, output=None):
    """Runs `args` in `cwd`; with a list as `output`, also appends each line printed to it."""
    started = time.monotonic()
    print("$ " + " ".join(args), flush=True)
    # SwiftPM leaves lock files in TMPDIR: keep them in the folder that is removed at the end.
    environment = dict(os.environ, TMPDIR=temporary)
    if output is None:
        result = subprocess.run(args, cwd=cwd, env=environment)
    else:
        result = subprocess.run(args, cwd=cwd, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(result.stdout, end="", flush=True)
        output.extend(result.stdout.splitlines())
    if result.returncode != 0:
        raise InstallError(f"`{' '.join(args)}` failed in the consumer package ({result.returncode})")
    return time.monotonic() - started


def openapi_steps():
    """The files of the OpenAPI guide's steps, {path: text}: the manifest and each block whose
    first line names its file."""
    text = read(OPENAPI_GUIDE)
    section = re.search(rf"^## {re.escape(OPENAPI_STEPS)}\n(.*?)(?=^## )", text, re.S | re.M)
    if not section:
        raise InstallError(f"{OPENAPI_GUIDE} has no '## {OPENAPI_STEPS}' section")
    files = {}
    for code in re.findall(r"^```(?:swift|yaml)\n(.*?)^```", section.group(1), re.S | re.M):
        first = code.split("\n", 1)[0].strip()
        named = re.fullmatch(r"(?://|#)\s*((?:Sources|Tests)/[\w./-]+)", first)
        if first.startswith("// swift-tools-version"):
            files["Package.swift"] = code
        elif named:
            files[named.group(1)] = code
        else:
            raise InstallError(f"{OPENAPI_GUIDE}: a block of '{OPENAPI_STEPS}' neither is the manifest nor names its file: {first}")
    configurations = [path for path in files if path.endswith("/openapi-generator-config.yaml")]
    if "Package.swift" not in files or len(configurations) != 1:
        raise InstallError(f"{OPENAPI_GUIDE}: '{OPENAPI_STEPS}' needs a manifest and one openapi-generator-config.yaml")
    return files, os.path.dirname(configurations[0])


def check_openapi_steps(work, checkout, temporary):
    """Step 7: an empty package through the OpenAPI guide's steps, with the demo's document."""
    files, target = openapi_steps()
    package = os.path.join(work, "openapi-app")
    manifest = files.pop("Package.swift")
    calls = [(start, end) for start, end in package_calls(manifest) if "/courier.git" in manifest[start:end]]
    if len(calls) != 1:
        raise InstallError(f"{OPENAPI_GUIDE}: the manifest should have one `.package(url:` of Courier, found {len(calls)}")
    start, end = calls[0]
    local = re.sub(r'url:\s*"[^"]*"', f'url: "{checkout}"', manifest[start:end], count=1)
    if "traits:" not in local:
        local = local[:-1] + ", traits: [])"
    files["Package.swift"] = manifest[:start] + local + manifest[end:]
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(package, path)), exist_ok=True)
        with open(os.path.join(package, path), "w") as file:
            file.write(text)
    shutil.copy(os.path.join(ROOT, OPENAPI_DOCUMENT), os.path.join(package, target, "openapi.yaml"))
    printed = []
    build = run(["swift", "build", "--build-tests"], package, temporary, printed)
    test = run(["swift", "test", "--skip-build"], package, temporary, printed)
    # The compiler's warnings, and SwiftPM's about the package itself (not its dependencies).
    warnings = sorted({line for line in printed if ": warning:" in line or line.startswith("warning: 'openapi-app'")})
    generated = [line for line in warnings if "/plugins/outputs/" in line or "/GeneratedSources/" in line]
    ours = [line for line in warnings if line not in generated]
    if ours:
        raise InstallError("the OpenAPI guide's package builds with warnings outside the generated code:\n" + "\n".join(ours))
    print(
        f"OpenAPI guide's steps: the plugin generated the client and the package built ({build:.0f} s) "
        f"and passed its test ({test:.0f} s); {len(generated)} warnings, all in the generated files"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--default-traits", action="store_true", help="build with the README's manifest as written")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and print its path")
    parser.add_argument("--no-openapi", action="store_true", help="skip the OpenAPI guide's steps (step 7)")
    options = parser.parse_args()

    version = library_version()
    manifest, (start, end) = install_manifest()
    call = manifest[start:end]
    wanted = requirement(call)
    versioned = versioned_requirement(call)
    check_guides_agree(wanted, versioned)
    print(f"README's Install requirement: {wanted}, then {versioned}; the library says it is {version}")

    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="courier-install-")
    try:
        checkout = os.path.join(work, "courier")
        git = snapshot(checkout)
        consumer = os.path.join(work, "app")
        temporary = os.path.join(work, "tmp")
        os.makedirs(temporary)
        os.makedirs(os.path.join(consumer, "Sources", "App"))
        os.makedirs(os.path.join(consumer, "Tests", "AppTests"))
        shutil.copy(os.path.join(ROOT, CONSUMER_SOURCE), os.path.join(consumer, "Sources", "App", "Consumer.swift"))
        with open(os.path.join(consumer, "Tests", "AppTests", "AppTests.swift"), "w") as file:
            file.write("import CourierTesting\n")

        local = re.sub(r'url:\s*"[^"]*"', f'url: "{checkout}"', call, count=1)

        def write_manifest(package_call):
            with open(os.path.join(consumer, "Package.swift"), "w") as file:
                file.write(manifest[:start] + package_call + manifest[end:])

        write_manifest(local)
        resolve = run(["swift", "package", "resolve"], consumer, temporary)
        if not options.default_traits and "traits:" not in local:
            write_manifest(local[:-1] + ", traits: [])")
            print(f"building with `traits: []` added: {local[:-1]}, traits: [])")
        build = run(["swift", "build"], consumer, temporary)
        print(f"install snippet: resolves `{wanted}` without tags ({resolve:.0f} s) and builds `import Courier` ({build:.0f} s)")
        # After the first release: the same copy tagged, the versioned form resolved from scratch.
        subprocess.run(git + ["tag", version], cwd=checkout, check=True)
        write_manifest(re.sub(r'url:\s*"[^"]*",\s*.*\)$', f'url: "{checkout}", {versioned})', call, count=1, flags=re.S))
        shutil.rmtree(os.path.join(consumer, ".build"), ignore_errors=True)
        if os.path.exists(os.path.join(consumer, "Package.resolved")):
            os.remove(os.path.join(consumer, "Package.resolved"))
        tagged = run(["swift", "package", "resolve"], consumer, temporary)
        print(f"versioned form: resolves `{versioned}` to the tag {version} ({tagged:.0f} s)")
        if not options.no_openapi:
            check_openapi_steps(work, checkout, temporary)
    finally:
        if options.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
        print(f"install.py: {time.monotonic() - started:.0f} s in all")


if __name__ == "__main__":
    try:
        main()
    except InstallError as error:
        sys.exit(f"install.py: {error}")
