import Foundation
import GangwayProtocol
import GangwayScreens

/// How `gangway` runs the device app.
public struct DeviceAppOptions: Sendable {
    /// Where the app keeps everything: the device's stores and keys under `device/`
    /// (``deviceDirectoryName``), the embedded server's database and admin token under
    /// `server/` (``serverDirectoryName``).
    public var dataDirectory: URL
    /// A running server to use instead of the embedded one.
    public var serverURL: URL?
    /// The embedded server's bcrypt cost.
    public var bcryptCost: UInt8
    /// Whether the simulated fingerprint sensor is enrolled.
    public var biometrics: Bool
    /// Passcode key-derivation rounds; only tests lower it.
    public var passcodeRounds: Int
    /// Whether several people share the device (the user picker, "add user").
    public var isSharedDevice: Bool
    /// The most pending changes one upload carries; only tests lower it.
    public var uploadBatchSize: Int
    /// Legal texts a person accepts on the welcome screen, with its box.
    public var termsLinks: [WelcomeScreen.Link]
    /// Whether the licence agreement and consent come after the passcode at onboarding,
    /// in the design guideline's order, instead of before it.
    public var agreementsAfterPasscode: Bool
    /// The platform permissions the app asks for once, after the passcode at onboarding.
    public var permissions: [Permission]

    public init(
        dataDirectory: URL,
        serverURL: URL? = nil,
        bcryptCost: UInt8 = 12,
        biometrics: Bool = false,
        passcodeRounds: Int,
        isSharedDevice: Bool = true,
        uploadBatchSize: Int? = nil,
        termsLinks: [WelcomeScreen.Link] = [],
        agreementsAfterPasscode: Bool = false,
        permissions: [Permission] = []
    ) {
        self.permissions = permissions
        self.agreementsAfterPasscode = agreementsAfterPasscode
        self.termsLinks = termsLinks
        self.dataDirectory = dataDirectory
        self.serverURL = serverURL
        self.bcryptCost = bcryptCost
        self.biometrics = biometrics
        self.passcodeRounds = passcodeRounds
        self.isSharedDevice = isSharedDevice
        self.uploadBatchSize = uploadBatchSize ?? EntityLimits.changesPerUpload
    }

    /// A `--terms` value read: `TITLE@VERSION=URL`, an http or https URL; `nil` for
    /// anything else.
    public static func termsLink(_ text: String) -> WelcomeScreen.Link? {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let label = text[..<equals]
        let url = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard let at = label.lastIndex(of: "@") else { return nil }
        let title = label[..<at].trimmingCharacters(in: .whitespaces)
        let version = label[label.index(after: at)...].trimmingCharacters(in: .whitespaces)
        guard !title.isEmpty, !version.isEmpty, (try? WebURL.parse(url)) != nil, !title.contains(where: \.isNewline)
        else { return nil }
        return WelcomeScreen.Link(title: title, url: url, version: version)
    }

    var deviceDirectory: URL { dataDirectory.appendingPathComponent(Self.deviceDirectoryName) }
    var serverDirectory: URL { dataDirectory.appendingPathComponent(Self.serverDirectoryName) }

    /// The directory in ``dataDirectory`` that the device's stores, keys and outbox live in.
    public static let deviceDirectoryName = "device"
    /// The directory in ``dataDirectory`` that the embedded server keeps its data in.
    public static let serverDirectoryName = "server"

    /// Whether `directory` is the device app's data directory: it holds the device's
    /// directory.
    public static func isDataDirectory(_ directory: URL) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent(deviceDirectoryName).path)
    }
}
