/// Stops the run when a property of the code under test does not hold.
///
/// `fatalError` traps, libFuzzer reports a deadly signal and keeps the input as a crash
/// artifact, exactly as for a real crash: a broken property is a finding like any other.
public func require(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() {
        fatalError("fuzz property failed: \(message())", file: file, line: line)
    }
}
