/// Stops the run when a property every input must keep does not hold: libFuzzer saves
/// the input as a crash.
///
/// `message` names the property; it never holds the input's bytes (the crash file does).
public func invariant(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #fileID,
    line: UInt = #line
) {
    guard condition() else { fatalError("invariant broken: \(message())", file: file, line: line) }
}
