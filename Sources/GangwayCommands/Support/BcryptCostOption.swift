import ArgumentParser
import GangwayServer

/// The `--bcrypt-cost` of `gangway`, `gangway serve` and `gangway admin`: one range, one
/// default and one sentence, the server's.
enum BcryptCostOption {
    static let range = ServerConfiguration.bcryptCosts
    static let `default` = ServerConfiguration.defaultBcryptCost
    /// The range as the help says it.
    static let rangeText = "\(range.lowerBound) to \(range.upperBound)"

    static func validate(_ cost: UInt8) throws {
        guard range.contains(cost) else {
            throw ValidationError("--bcrypt-cost must be between \(range.lowerBound) and \(range.upperBound).")
        }
    }
}
