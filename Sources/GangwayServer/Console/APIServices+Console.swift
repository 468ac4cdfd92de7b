import Foundation
import GangwayConsole
import GangwayServerStorage

/// What the console asks of the server (``ConsoleServices``), answered by the services the
/// API's handlers share: an operator's sign-in is counted and checked as a user's is.
extension APIServices: ConsoleServices {
    var clientAddress: String { RequestInfo.current.clientAddress(trusting: settings.trustedProxies) }

    func checkOperatorPassword(
        name: String,
        password: String,
        knownBrowser: String?
    ) async throws -> OperatorPasswordCheck {
        let address = clientAddress
        // A browser this operator signed in with before is counted apart and let in first:
        // strangers' guesses at the name lock no one out of the browser they use.
        let cookieHash = try? await SessionsHandler(services: self).knownDeviceCookie(
            knownBrowser,
            username: SignInThrottle.operatorKey(name)
        )
        let (throttle, storage, passwords) = (self.throttle, self.storage, self.passwords)
        // Counted only once a check may run: a busy answer counts nowhere.
        let (admission, record, matches) = try await passwords.admitted(preferred: cookieHash != nil, console: true) {
            let admission = try await throttle.admitOperator(name: name, address: address, cookieHash: cookieHash)
            let record = try? await storage.operatorRecord(named: name)
            let matches = try await passwords.verify(password, against: record?.passwordHash)
            return (admission, record, matches)
        }
        return OperatorPasswordCheck(record: record, matches: matches, isKnownBrowser: cookieHash != nil) {
            try? await throttle.succeeded(admission)
        }
    }

    func newKnownBrowser(operator name: String) async -> String? {
        try? await SessionsHandler(services: self).newDeviceCookie(for: SignInThrottle.operatorKey(name))
    }

    func hashPassword(_ password: String) async throws -> String {
        try await passwords.hash(password)
    }

    func seal(_ secret: Data, for purpose: String) throws -> Data {
        try keys.server.seal(secret, for: purpose)
    }

    func open(_ sealed: Data, for purpose: String, plainLength: Int) throws -> Data {
        try keys.server.open(sealed, for: purpose, plainLength: plainLength)
    }
}
