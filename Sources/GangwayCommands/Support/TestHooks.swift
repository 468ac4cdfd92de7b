/// What Gangway's own end-to-end tests change in the commands: a cheaper key derivation,
/// and a crash at a named point of a store operation.
///
/// Only the test host (`gangway-test-host`, a target of the tests that is never shipped)
/// sets them, through ``GangwayCommand/start(hooks:)``. The `gangway` executable never
/// does, and nothing in a user's environment reaches them.
@_spi(Testing) public struct TestHooks: Sendable {
    /// PBKDF2 rounds for new passcode slots instead of the standard 600,000.
    public var passcodeRounds: Int?
    /// A store fault point (`FaultPoint`) at which the process ends at once, as if the
    /// power went.
    public var crashPoint: String?
    /// The most pending changes the device app's uploads carry, so a test can stop an
    /// upload at many points.
    public var uploadBatchSize: Int?

    public init(passcodeRounds: Int? = nil, crashPoint: String? = nil, uploadBatchSize: Int? = nil) {
        self.passcodeRounds = passcodeRounds
        self.crashPoint = crashPoint
        self.uploadBatchSize = uploadBatchSize
    }

    /// The hooks of the running command; `nil` in the shipped executable.
    @TaskLocal static var current: TestHooks?
}
