#!/usr/bin/env bash
# Regenerates the demo API's Swift client from openapi.yaml into Generated/: Types.swift (and
# the Types+*.swift files the generator splits it into) and Client.swift.
#
# It builds apple/swift-openapi-generator 1.14.3 through the package in Example/OpenAPIGenerator
# (a debug build: about 1.5 minutes on 2 cores the first time, then cached in its .build/) and
# runs it with openapi-generator-config.yaml. Run it after changing openapi.yaml, from any
# directory, and commit the generated files with the document: CI does not run this script and
# does not build the generator.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

swift build --package-path Example/OpenAPIGenerator --product swift-openapi-generator
# Built: now clear the old output, so that no file of an earlier run lingers.
rm -f Example/DemoAPIClient/Generated/*.swift
swift run --package-path Example/OpenAPIGenerator --skip-build swift-openapi-generator generate \
    --config Example/DemoAPIClient/openapi-generator-config.yaml \
    --output-directory Example/DemoAPIClient/Generated \
    Example/DemoAPIClient/openapi.yaml
# The generator writes `package import` lines that Swift 6.3 warns about where a file does not
# use them (it silences them only from Swift 6.4 on, with `@diagnose`), and CI allows no warning:
# plain imports, which is what the target (Swift 6 mode, no InternalImportsByDefault) means by
# default. Nothing else in the generated code is changed.
sed -i -E 's/^(@_spi\(Generated\) )?package import /\1import /' Example/DemoAPIClient/Generated/*.swift
