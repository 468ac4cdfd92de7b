import Foundation
import GangwayTesting

/// A Prometheus text exposition read by `prometheus_client`'s own parser, in the tests'
/// Python environment (`Tests/Fixtures/metrics/parse.py`): what a real scraper makes of
/// it, not what Gangway thinks it wrote.
public struct PrometheusExposition: Sendable {
    /// One sample: its name (a histogram's `_bucket`, `_sum`, `_count` apart), its
    /// family's name and type, its labels and value.
    public struct Sample: Sendable, Hashable {
        public var family: String
        public var type: String
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public let samples: [Sample]

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/metrics/parse.py")

    /// Whether the parser can run here (the tests' Python environment, see `.ci/run`).
    public static var isInstalled: Bool { TestIdentityProvider.python != nil }

    /// Parses `text`; throws when the parser refuses it, with the parser's words. The
    /// parser runs as a child process, written to, read and waited for on a thread of
    /// its own (``GangwayTesting/onOwnThread(_:)``): the tasks the tests share are never
    /// held by it.
    public static func parse(_ text: String) async throws -> PrometheusExposition {
        guard let python = TestIdentityProvider.python else {
            throw TestServerError("no Python with prometheus_client; run .ci/run")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path]
        let (input, output, errors) = (Pipe(), Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = Data(text.utf8)
        // Written while the output is read, each on its own thread: neither pipe fills.
        async let written: Void = onOwnThread {
            input.fileHandleForWriting.write(data)
            try input.fileHandleForWriting.close()
        }
        async let read = onOwnThread { output.fileHandleForReading.readDataToEndOfFile() }
        async let said = onOwnThread { errors.fileHandleForReading.readDataToEndOfFile() }
        try await written
        let (json, message) = try await (read, said)
        try await process.exit(within: .seconds(60))
        guard process.terminationStatus == 0 else { throw TestServerError(String(decoding: message, as: UTF8.self)) }
        let list = try JSONSerialization.jsonObject(with: json) as? [[String: Any]] ?? []
        return PrometheusExposition(
            samples: list.map { sample in
                Sample(
                    family: sample["family"] as? String ?? "",
                    type: sample["type"] as? String ?? "",
                    name: sample["name"] as? String ?? "",
                    labels: sample["labels"] as? [String: String] ?? [:],
                    value: (sample["value"] as? NSNumber)?.doubleValue ?? .nan
                )
            }
        )
    }

    /// The value of the sample `name` with exactly `labels`, if there is one.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// The samples named `name`.
    public func samples(named name: String) -> [Sample] {
        samples.filter { $0.name == name }
    }
}
