import Crypto
import Foundation
import Testing

/// Generated/ is what `scripts/generate-api` writes from the API's document and the
/// generator's configurations: the stamp it writes names the SHA-256 of every input and
/// output, and each must still be the file's.
@Suite("The generated wire code is what the API's document makes")
struct GeneratedSourcesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let stamp = "Generated/openapi-generator.sha256"
    /// What the generated code is made from: the stamp must name each of them.
    static let inputs: Set<String> = [
        "Sources/GangwayProtocol/openapi.json", "scripts/generate-api", "scripts/openapi-generator/Package.swift",
        "scripts/openapi-generator/types.yaml", "scripts/openapi-generator/client.yaml",
        "scripts/openapi-generator/server.yaml",
    ]

    /// The stamp's lines: path → hex digest.
    static func stamped() throws -> [String: String] {
        let text = try String(contentsOf: root.appendingPathComponent(stamp), encoding: .utf8)
        var digests: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ", maxSplits: 1)
            try #require(parts.count == 2, "a stamp line is a digest and a path: \(line)")
            let path = parts[1].trimmingCharacters(in: .whitespaces)
            #expect(digests[path] == nil, "\(path) is stamped twice")
            digests[path] = String(parts[0])
        }
        return digests
    }

    static func digest(of path: String) throws -> String {
        let data = try Data(contentsOf: root.appendingPathComponent(path))
        return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// Every Swift file below Generated/, relative to the package's root.
    static func generatedFiles() throws -> Set<String> {
        let folder = root.appendingPathComponent("Generated")
        let enumerator = try #require(FileManager.default.enumerator(atPath: folder.path))
        return Set(enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { "Generated/\($0)" })
    }

    @Test("each input and output is the file the stamp names: run scripts/generate-api after changing the document")
    func stampMatches() throws {
        let digests = try Self.stamped()
        for (path, expected) in digests.sorted(by: { $0.key < $1.key }) {
            let actual = try Self.digest(of: path)
            #expect(
                actual == expected,
                "\(path) is not what scripts/generate-api last read or wrote: run scripts/generate-api"
            )
        }
    }

    @Test("the stamp names every input, and exactly the generated files there are")
    func stampIsComplete() throws {
        let stamped = Set(try Self.stamped().keys)
        #expect(Self.inputs.subtracting(stamped).isEmpty, "inputs not stamped: \(Self.inputs.subtracting(stamped))")
        let generated = try Self.generatedFiles()
        #expect(!generated.isEmpty)
        let stampedOutputs = stamped.subtracting(Self.inputs)
        #expect(generated == stampedOutputs, "run scripts/generate-api: Generated/ and its stamp name other files")
    }

    @Test("the generated files declare no access level on an import, so a build warns of none")
    func plainImports() throws {
        for path in try Self.generatedFiles().sorted() {
            let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains(" import ") || line.hasPrefix("import ") {
                let plain = line.hasPrefix("import ") || line.hasPrefix("@_spi(Generated) import ")
                #expect(plain, "\(path): \(line)")
            }
        }
    }
}
