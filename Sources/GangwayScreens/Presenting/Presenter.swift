/// How flows show screens and get answers: the seam between the flow engine and a UI.
///
/// A presenter shows the screen, feeds it the user's inputs until it finishes, and
/// returns its outcome. The terminal app renders screens as text; tests answer them with
/// `ScriptedPresenter` from GangwayTesting.
public protocol Presenter: Sendable {
    /// Shows `screen` and runs it until it finishes.
    ///
    /// A screen that waits for something outside it, such as ``DeviceCodeScreen`` while
    /// the flow polls the server, is dismissed by the flow: it cancels the task that
    /// presents it, and the presenter then takes the screen down and throws
    /// `CancellationError` without reading the person's next input.
    /// - Throws: ``PresenterError`` when the screen cannot be shown or the user went away;
    ///   a presenter may throw its own errors too.
    func present<Screen: ScreenModel>(_ screen: Screen) async throws -> Screen.Outcome

    /// Hides every screen at once, as when the app goes to the background: nothing the
    /// user worked on may stay visible in the app switcher.
    func hideAll() async
}

/// Why a presenter could not run a screen.
public struct PresenterError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case closed
        case unexpectedScreen
        case unexpectedInput
        case unfinished
    }

    private let code: Code
    /// A message meant for a person, never containing what the user typed.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The user interface is gone (input closed, window dismissed).
    public static func closed(_ message: String = "the user interface is closed") -> Self { Self(.closed, message) }
    /// A screen came that the presenter was not prepared for.
    public static func unexpectedScreen(_ message: String) -> Self { Self(.unexpectedScreen, message) }
    /// An input did not fit the screen it was given to.
    public static func unexpectedInput(_ message: String) -> Self { Self(.unexpectedInput, message) }
    /// The inputs ran out before the screen finished.
    public static func unfinished(_ message: String) -> Self { Self(.unfinished, message) }

    public static let closed = Self(.closed, "")
    public static let unexpectedScreen = Self(.unexpectedScreen, "")
    public static let unexpectedInput = Self(.unexpectedInput, "")
    public static let unfinished = Self(.unfinished, "")

    /// Errors are equal when their kind is; the message does not count.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { message.isEmpty ? "presenter error (\(code))" : message }
}
