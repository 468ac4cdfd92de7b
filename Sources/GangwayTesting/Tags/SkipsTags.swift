import Foundation
import Testing

/// Leaves out the tests carrying a tag named in `GANGWAY_SKIP_TAGS` (comma-separated, such
/// as `slow,browser,endToEnd`): each is cancelled before it starts, and the run says so.
/// Without the variable every test runs. A suite given tags is given this trait with them
/// (``Testing/Trait/skipsTags``), so the variable reaches every tagged test.
///
/// `swift test --skip tag:NAME` does the same once the toolchain's swift-testing reads
/// tags in `--skip` (after Swift 6.3); until then this is the inner loop's way.
public struct SkipsTags: SuiteTrait, TestTrait, TestScoping {
    /// The variable that names the tags to leave out.
    public static let variable = "GANGWAY_SKIP_TAGS"

    public var isRecursive: Bool { true }

    /// The tags `GANGWAY_SKIP_TAGS` names.
    static var skipped: Set<String> {
        let named = ProcessInfo.processInfo.environment[variable] ?? ""
        return Set(named.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let names = Set(test.tags.map { "\($0)".trimmingCharacters(in: CharacterSet(charactersIn: ".")) })
        let left = names.intersection(Self.skipped)
        if !left.isEmpty {
            try Test.cancel("left out: \(Self.variable) names \(left.sorted().joined(separator: ", "))")
        }
        try await function()
    }
}

extension Trait where Self == SkipsTags {
    /// Leaves the test or suite out when `GANGWAY_SKIP_TAGS` names one of its tags.
    public static var skipsTags: Self { SkipsTags() }
}
