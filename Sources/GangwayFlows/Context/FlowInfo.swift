/// The name and type of one piece of information steps hand each other.
///
/// ```swift
/// extension FlowInfoKey where Value == String {
///     static let serverUserID = FlowInfoKey("serverUserID")
/// }
/// context.info[.serverUserID] = "alice"
/// ```
public struct FlowInfoKey<Value: Sendable>: Sendable, Hashable {
    /// The key's name, unique across the app.
    public let name: String

    public init(_ name: String) {
        self.name = name
    }
}

/// Typed information steps hand each other during a flow.
public struct FlowInfo: Sendable {
    private var values: [String: any Sendable] = [:]

    public init() {}

    /// The value under `key`, typed by the key.
    public subscript<Value: Sendable>(key: FlowInfoKey<Value>) -> Value? {
        get { values[key.name] as? Value }
        set { values[key.name] = newValue }
    }

    /// The names of the keys holding a value, sorted.
    public var names: [String] { values.keys.sorted() }
}
