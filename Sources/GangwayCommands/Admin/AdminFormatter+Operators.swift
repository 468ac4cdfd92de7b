import Foundation
import GangwayAdmin
import GangwayProtocol

extension AdminFormatter {
    static func operators(_ operators: [ManagedOperator]) -> String {
        guard !operators.isEmpty else {
            return "No operators. Add one with 'gangway admin operators add NAME --role admin'."
        }
        return table(
            ["OPERATOR", "ROLE", "SIGN-IN", "ADDED"],
            operators.map {
                [$0.name, $0.role.rawValue, signIn($0), date($0.createdAt)]
            }
        )
    }

    /// How an operator signs in: with the password and code they set, and through each
    /// provider identity linked to them.
    private static func signIn(_ record: ManagedOperator) -> String {
        let ways =
            (record.isEnrolled ? ["password and code"] : [])
            + (record.identities ?? []).map { "\($0.subject) at \($0.issuer)" }
        return ways.isEmpty ? "not set up yet" : ways.joined(separator: "; ")
    }

    /// Where an operator enrols, and until when. When the server ran in this process for
    /// the command, its address ended with it: the link is then the path on the server's
    /// own address, once it serves.
    static func enrolment(_ enrolment: OperatorEnrolment, startedHere: Bool) -> String {
        let who = "\(enrolment._operator.name) (\(enrolment._operator.role.rawValue))"
        var link = enrolment.enrolmentURL
        var lead = "\(who) sets a password and a second factor at:"
        if startedHere, let components = URLComponents(string: enrolment.enrolmentURL) {
            link = components.path + (components.query.map { "?" + $0 } ?? "")
            lead =
                "\(who) sets a password and a second factor at this path of the server's address, once "
                + "'gangway serve' runs:"
        }
        return """
            \(lead)
            \(link)
            The link works once, until \(date(enrolment.expiresAt)). Send it to \(enrolment._operator.name) alone.
            """
    }

    /// - Parameter before: The `--before` given: no event before it is not an empty audit.
    static func audit(_ events: [AuditEvent], before: Int64? = nil) -> String {
        guard !events.isEmpty else { return before.map { "No events before \($0)." } ?? "The audit is empty." }
        return table(
            ["ID", "WHEN", "WHO", "VIA", "WHAT", "TARGET", "FROM", "CHANGE"],
            events.map {
                [
                    String($0.id), date($0.at), $0.actor, $0.via.rawValue, $0.action, $0.target ?? "", $0.address ?? "",
                    $0.detail ?? "",
                ]
            }
        )
    }

    /// The events as CSV, as the console's download has them (``AuditExport``).
    static func auditCSV(_ events: [AuditEvent]) -> String {
        AuditExport.csv(events)
    }

    /// `value` as JSON with its keys sorted and dates as the API writes them (RFC 3339,
    /// ``LenientDateTranscoder``), for scripts: the audit's events, the uploaded logs, the
    /// activity.
    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(LenientDateTranscoder.format(date))
        }
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
