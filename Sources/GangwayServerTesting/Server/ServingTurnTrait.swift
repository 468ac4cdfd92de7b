import Testing

/// Runs each test of a suite inside one of the process's test-server turns
/// (``TestServer/withServingTurn(_:)``), so a test's servers are made, as well as
/// served, a few at a time: swift-testing starts every test at once, and two hundred
/// servers with their databases open took the test process past the open files at which
/// Foundation's `Process` can crash while another test starts a program.
public struct ServingTurnTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public init() {}

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite's own scope holds nothing; each test case takes its turn.
        guard testCase != nil else { return try await function() }
        try await TestServer.withServingTurn { try await function() }
    }
}

extension Trait where Self == ServingTurnTrait {
    /// Each test takes a test-server turn for the whole of its run.
    public static var servingTurn: Self { Self() }
}
