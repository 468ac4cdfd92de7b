import ArgumentParser
import Foundation
import GangwayProtocol

/// A URL option a person typed (`--server`, `--public-url`), read by the rule every side
/// shares (``WebURL``): refused with one sentence and exit code 64 when it is not one
/// Gangway can reach.
enum URLOption {
    /// `text` as a URL, or a validation error naming `option` and what is wrong.
    static func parse(_ text: String, option: String) throws -> URL {
        do throws(WebURL.Problem) {
            return try WebURL.parse(text)
        } catch {
            throw ValidationError(WebURL.message(option, text, error))
        }
    }
}
