import Foundation

// gangway-wire-types GENERATOR DOCUMENT CONFIGURATION GENERATED OUTPUT FILE...
//
// Runs swift-openapi-generator (GENERATOR) on DOCUMENT with CONFIGURATION into the
// directory GENERATED, then writes each FILE it generated to OUTPUT with every
// `public import` made a plain `import`.
//
// The generator splits the types into a file per namespace, and each file imports all
// that any of them uses: the compiler warns of every `public import` a file does not use,
// some 250 warnings in a cold build, until Swift 6.4 honours the generator's own
// `@diagnose(UnusedImportAccess, as: ignored)`. In Swift 6 without
// `InternalImportsByDefault`, which the package does not enable, a plain `import` is
// public too, and is never checked for use: the module and what it declares are the same.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("gangway-wire-types: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count > 5 else {
    fail("usage: gangway-wire-types GENERATOR DOCUMENT CONFIGURATION GENERATED OUTPUT FILE...")
}
let (generator, document, configuration) = (arguments[0], arguments[1], arguments[2])
let generated = URL(fileURLWithPath: arguments[3])
let output = URL(fileURLWithPath: arguments[4])
let files = Set(arguments.dropFirst(5))

// What an earlier run generated goes first, so that only this run's files are checked below.
try? FileManager.default.removeItem(at: generated)
let generation = Process()
generation.executableURL = URL(fileURLWithPath: generator)
generation.arguments = [
    "generate", document, "--config", configuration, "--output-directory", generated.path, "--plugin-source", "build",
]
do {
    try generation.run()
} catch {
    fail("cannot run \(generator): \(error)")
}
generation.waitUntilExit()
guard generation.terminationStatus == 0 else { exit(generation.terminationStatus) }

/// `public import X` and `@_spi(S) public import X` lose their `public `; every other line
/// is kept as it is.
func plainImport(_ line: Substring) -> String {
    if line.hasPrefix("public import ") { return String(line.dropFirst("public ".count)) }
    if line.hasPrefix("@_spi("), let range = line.range(of: ") public import ") {
        return line.replacingCharacters(in: range, with: ") import ")
    }
    return String(line)
}

let written = (try? FileManager.default.contentsOfDirectory(atPath: generated.path)) ?? []
for name in written.sorted() where name.hasSuffix(".swift") && !files.contains(name) {
    // A file this module declares no output for would not be compiled: an empty one (the
    // client and server a types-only module does not generate) is no loss.
    let size = (try? FileManager.default.attributesOfItem(atPath: generated.appendingPathComponent(name).path))?[.size]
    if (size as? Int ?? 1) > 0 {
        fail("the generator wrote \(name), which Plugins/WireTypes does not list; add it there")
    }
}
try? FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
for name in files.sorted() {
    guard let text = try? String(contentsOf: generated.appendingPathComponent(name), encoding: .utf8) else {
        fail("the generator wrote no \(name), which Plugins/WireTypes lists; take it out there")
    }
    let swift = text.split(separator: "\n", omittingEmptySubsequences: false).map(plainImport).joined(separator: "\n")
    let destination = output.appendingPathComponent(name)
    // A file already holding this text is left as it is, so that the module is not
    // compiled again when nothing in it changed.
    if (try? String(contentsOf: destination, encoding: .utf8)) == swift { continue }
    do {
        try swift.write(to: destination, atomically: true, encoding: .utf8)
    } catch {
        fail("cannot write \(destination.path)")
    }
}
