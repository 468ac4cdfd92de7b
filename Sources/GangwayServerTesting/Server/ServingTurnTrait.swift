import Testing

/// Runs each test of a suite inside one of the process's test-server turns
/// (``TestServer/withServingTurn(_:)``), so a test's servers are made, as well as
/// served, a few at a time: swift-testing starts every test at once, and two hundred
/// servers with their databases open took the test process past the open files at which
/// Foundation's `Process` can crash while another test starts a program.
public struct ServingTurnTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }
    /// Whether each turn is taken ahead of those of tests without it.
    public var first: Bool

    public init(first: Bool = false) { self.first = first }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite's own scope holds nothing; each test case takes its turn.
        guard testCase != nil else { return try await function() }
        try await TestServer.withServingTurn(first: first) { try await function() }
    }
}

extension Trait where Self == ServingTurnTrait {
    /// Each test takes a test-server turn for the whole of its run.
    public static var servingTurn: Self { Self() }

    /// Each test takes a test-server turn ahead of the tests that wait with
    /// ``servingTurn``: for a serialized suite, whose tests, one after another, would
    /// otherwise wait in the queue for each turn and end the whole run alone.
    public static var servingTurnFirst: Self { Self(first: true) }
}
