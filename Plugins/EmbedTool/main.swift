import Foundation

// gangway-embed OUTPUT ROOT FILE...
//
// Writes OUTPUT, a Swift file that holds each FILE's text under its path from ROOT
// (`EmbeddedResources.files["Localization/en.json"]`), so a module's texts are part of
// its code: the built binary needs no resource bundle beside it.

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 2, let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: gangway-embed OUTPUT ROOT FILE...\n".utf8))
    exit(64)
}
let root = URL(fileURLWithPath: arguments.dropFirst().first ?? "").standardizedFileURL.path + "/"
let delimiter = String(repeating: "#", count: 4)
var swift = "// Made by gangway-embed from the module's resource files at build time; never edited.\n\n"
swift += "enum EmbeddedResources {\n    /// Each resource file's text, by its path in the module.\n"
swift += "    static let files: [String: String] = [\n"
for path in arguments.dropFirst(2).sorted() {
    let file = URL(fileURLWithPath: path).standardizedFileURL.path
    guard file.hasPrefix(root), let text = try? String(contentsOfFile: file, encoding: .utf8) else {
        FileHandle.standardError.write(Data("gangway-embed: \(file) is not UTF-8 text under \(root)\n".utf8))
        exit(1)
    }
    // In the raw string, `"""####` would end it and `\####` begin an escape.
    guard !text.contains("\"\"\"" + delimiter), !text.contains("\\" + delimiter), !text.contains("\r") else {
        FileHandle.standardError.write(
            Data("gangway-embed: \(file) holds a raw string's end, an escape or a CR\n".utf8)
        )
        exit(1)
    }
    let name = String(file.dropFirst(root.count))
    // A multi-line raw string: the text as it is, backslashes and quotes included; the
    // line break before the closing delimiter is not part of it, so it is added.
    swift += "        \"\(name)\": \(delimiter)\"\"\"\n\(text)\n\"\"\"\(delimiter),\n"
}
swift += "    ]\n}\n"
// A file already holding these texts is left as it is: the build runs this tool whenever
// SwiftPM has linked it again, which it does at most builds, and a file written anew
// would have its module compiled again each time.
if (try? String(contentsOfFile: output, encoding: .utf8)) == swift { exit(0) }
do {
    try swift.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("gangway-embed: cannot write \(output)\n".utf8))
    exit(1)
}
