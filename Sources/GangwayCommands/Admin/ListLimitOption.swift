import ArgumentParser
import GangwayProtocol

/// `--limit` of a list the server pages: at most this many, within the API's range; none
/// given, the server's own choice.
struct ListLimitOption: ParsableArguments {
    @Option(
        name: .customLong("limit"),
        parsing: .unconditional,
        help: "List at most this many (\(APILimits.listLimit.lowerBound) to \(APILimits.listLimit.upperBound))."
    )
    var value: Int?

    func validate() throws {
        if let value, !APILimits.listLimit.contains(value) {
            throw ValidationError("--limit is \(APILimits.listLimit.lowerBound) to \(APILimits.listLimit.upperBound).")
        }
    }
}
