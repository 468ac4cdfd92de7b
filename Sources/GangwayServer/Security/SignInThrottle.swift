import Foundation
import GangwayProtocol
import GangwayServerStorage

/// Limits how fast anyone can guess a user's password, without handing that person's
/// account to whoever guesses worst.
///
/// Attempts are counted when they are let through, before the password is checked, in
/// one transaction per user name (`ServerStorage.updateSignInAttempts(username:keys:_:)`):
/// parallel guesses from any number of processes cannot all take the last attempt
/// allowed. Each sign-in counts under one of two sets of keys:
///
/// - **With a device cookie** the server gave that device at an earlier sign-in of the
///   same user: under that cookie only. Guessing elsewhere never slows the person on
///   the devices they already use.
/// - **Without one** (a new device, or a guesser): under the user name and the address,
///   and under the user name alone. The first stops one address quickly; the second
///   stops guessing spread over many addresses, at the price of slowing the user's
///   sign-ins on new devices while someone guesses.
///
/// A key allows ``Rules/allowedPerAddress`` (or ``Rules/allowedPerUser``) attempts; the
/// one that reaches the limit blocks the key for ``Rules/firstBlock`` at once, in case it
/// fails, and each further attempt doubles the block up to ``Rules/longestBlock``. A
/// successful sign-in clears its keys; a key is forgotten ``Rules/window`` after its
/// last block ended. While a key is blocked the password is not checked at all.
struct SignInThrottle: Sendable {
    struct Rules: Sendable {
        /// Attempts per user name and address, and per device cookie.
        var allowedPerAddress = 5
        /// Attempts per user name from devices without a cookie, across all addresses.
        var allowedPerUser = 20
        var window: Duration = .seconds(15 * 60)
        var firstBlock: Duration = .seconds(30)
        var longestBlock: Duration = .seconds(15 * 60)
    }

    /// An attempt let through: the keys to clear if the password is right.
    struct Admission: Sendable {
        let username: String
        let keys: [String]
    }

    let storage: ServerStorage
    let rules: Rules
    let now: @Sendable () -> Date

    /// Lets one attempt through, or throws 429 with the longest wait of its blocked keys;
    /// a refused attempt counts nowhere.
    ///
    /// - Parameter cookieHash: The hash of a device cookie known to belong to `username`.
    func admit(username: String, address: String, cookieHash: Data?) async throws(APIError) -> Admission {
        // A name with a control character (a NUL, which PostgreSQL text cannot hold) is
        // counted under its escaped text: such a name exists nowhere, and still counts.
        let username = TextRules.escapingControls(username, keepingLines: false)
        let limits: [(key: String, allowed: Int)] =
            if let cookieHash {
                [("cookie:" + cookieHash.base64URLEncoded, rules.allowedPerAddress)]
            } else {
                [("pair:\(username)|\(address)", rules.allowedPerAddress), ("user:\(username)", rules.allowedPerUser)]
            }
        if let wait = try await count(username: username, limits) {
            throw .throttled(retryAfter: wait)
        }
        return Admission(username: username, keys: limits.map(\.key))
    }

    /// Lets one console sign-in attempt of operator `name` through, as ``admit(username:address:cookieHash:)``
    /// does an app user's: from a browser that holds the cookie of an earlier sign-in of
    /// the operator, under that cookie only; from any other, per name and address, and
    /// per name across addresses. Operators are counted apart from app users of the same
    /// name.
    func admitOperator(name: String, address: String, cookieHash: Data?) async throws(APIError) -> Admission {
        let name = Self.operatorKey(name)
        let limits: [(key: String, allowed: Int)] =
            if let cookieHash {
                [("cookie:" + cookieHash.base64URLEncoded, rules.allowedPerAddress)]
            } else {
                [("pair:\(name)|\(address)", rules.allowedPerAddress), (name, rules.allowedPerUser)]
            }
        if let wait = try await count(username: name, limits) {
            throw .throttled(retryAfter: wait)
        }
        return Admission(username: name, keys: limits.map(\.key))
    }

    /// What operator `name`'s attempts and browser cookies are kept under: apart from an
    /// app user of the same name, whose names hold no `:`.
    static func operatorKey(_ name: String) -> String {
        "operator:" + TextRules.escapingControls(name, keepingLines: false)
    }

    /// Counts one release of a registration's recovery secret, or throws 429 when the
    /// registration had ``Rules/allowedPerAddress`` already (with the same blocks as
    /// sign-ins): a stolen password cannot make the server hand the secret out at will.
    func admitRecoveryRelease(registrationID: String, username: String) async throws(APIError) {
        if let wait = try await count(username: username, [("recovery:\(registrationID)", rules.allowedPerAddress)]) {
            throw .recoveryThrottled(retryAfter: wait)
        }
    }

    /// Counts one wrong user code entered on the device verification page from
    /// `address`, or throws 429 past 10 (with the sign-in blocks after that): with 20⁸
    /// codes, a guesser at one address finds a live one about never, while the people
    /// behind one address approving their devices are never counted.
    func admitWrongUserCode(address: String) async throws(APIError) {
        let key = "user-code:\(address)"
        if let wait = try await count(username: key, [(key, 10)]) {
            throw .throttled(retryAfter: wait)
        }
    }

    /// Throws 429 while `address` is blocked for wrong user codes, counting nothing: a
    /// blocked guesser learns nothing from a right one either.
    func checkUserCodeEntry(address: String) async throws(APIError) {
        let key = "user-code:\(address)"
        if let wait = try await count(username: key, [(key, 10)], counting: false) {
            throw .throttled(retryAfter: wait)
        }
    }

    /// Counts one device authorization started for `appID` from `address`, or throws 429
    /// past 30 in 15 minutes (with the sign-in blocks after that): each one is a row
    /// and a user code drawn, so one address cannot fill the table or the code space.
    func admitDeviceAuthorization(appID: String, address: String) async throws(OAuthError) {
        let key = "device-authorization:\(appID)|\(address)"
        let wait: Int?
        do {
            wait = try await count(username: key, [(key, 30)])
        } catch {
            throw OAuthError(.serverError, error.message, status: error.status)
        }
        if let wait { throw .throttled(retryAfter: wait) }
    }

    /// The most log uploads in 15 minutes from one device, from one user's devices
    /// together, and from one app's: past one, 429 (with the sign-in blocks after that).
    /// With the retention (``LogRetention``), what one device, one user (whatever the
    /// number of device IDs they register) and one app can store is bounded.
    static let logUploadLimits = (perDevice: 30, perUser: 60, perApp: 1_200)

    /// Counts one log upload of `username`'s device, or throws 429 past a limit of
    /// ``logUploadLimits``.
    func admitLogUpload(appID: String, deviceID: String, username: String) async throws(APIError) {
        let limits = Self.logUploadLimits
        let user: [(key: String, allowed: Int)] = [
            ("logs:\(username)|\(appID)|\(deviceID)", limits.perDevice),
            ("logs-user:\(appID)|\(username)", limits.perUser),
        ]
        if let wait = try await count(username: username, user) {
            throw .logUploadThrottled(retryAfter: wait)
        }
        let app = "logs-app:\(appID)"
        if let wait = try await count(username: app, [(app, limits.perApp)]) {
            throw .logUploadThrottled(retryAfter: wait)
        }
    }

    /// Counts one attempt under every key, or none when one of them is blocked: then the
    /// seconds to wait for the last of them. With `counting` off, only says the wait.
    private func count(
        username: String,
        _ limits: [(key: String, allowed: Int)],
        counting: Bool = true
    ) async throws(APIError) -> Int? {
        let time = now()
        let rules = rules
        let wait: TimeInterval
        do {
            wait = try await storage.updateSignInAttempts(username: username, keys: limits.map(\.key)) { current in
                var counted: [SignInAttempts] = []
                var wait: TimeInterval = 0
                for (key, allowed) in limits {
                    var attempts = current[key] ?? SignInAttempts(key: key, count: 0, windowStart: time)
                    if time.timeIntervalSince(attempts.blockedUntil ?? attempts.windowStart) > rules.window.seconds {
                        attempts = SignInAttempts(key: key, count: 0, windowStart: time)
                    }
                    if let blockedUntil = attempts.blockedUntil, blockedUntil > time {
                        wait = max(wait, blockedUntil.timeIntervalSince(time))
                        continue
                    }
                    attempts.count += 1
                    let excess = attempts.count - allowed
                    if excess >= 0 {
                        let doubled = rules.firstBlock.seconds * pow(2, Double(min(excess, 20)))
                        attempts.blockedUntil = time.addingTimeInterval(min(doubled, rules.longestBlock.seconds))
                    }
                    counted.append(attempts)
                }
                guard counting, wait == 0 else { return (SignInAttemptsChange(), wait) }
                return (SignInAttemptsChange(save: counted), 0)
            }
        } catch {
            throw .storage(error)
        }
        return wait > 0 ? Int(wait.rounded(.up)) : nil
    }

    /// Clears the keys of an attempt whose password was right.
    func succeeded(_ admission: Admission) async throws(APIError) {
        do {
            try await storage.updateSignInAttempts(username: admission.username, keys: []) { _ in
                (SignInAttemptsChange(clear: admission.keys), ())
            }
        } catch {
            throw .storage(error)
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole nanoseconds, as swift-metrics' timers take them.
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
