import Foundation
import GangwayPolicy

extension PasscodePolicy {
    /// The policy the settings exchange's `passwordPolicy` describes, keys it leaves out
    /// taking the values of `defaults`, checked with ``GangwayPolicy/PasscodePolicy/validated()``.
    ///
    /// `passwordPolicyEnabled` is not read here: whether a passcode is required at all is
    /// ``Components/Schemas/PasswordPolicy/isEnabled``. The one mapping from the wire to
    /// the policy, used by the server to validate an admin's change, by the device to read
    /// its settings and by the admin client to show them; it goes through GangwayPolicy's
    /// field table (``GangwayPolicy/PasscodePolicy/fields``), so a new rule is one entry.
    /// - Throws: ``GangwayPolicy/PasscodePolicyError`` naming the settings key at fault.
    public init(
        _ wire: Components.Schemas.PasswordPolicy,
        defaults: PasscodePolicy = .standard
    ) throws(PasscodePolicyError) {
        try self.init(settings: wire.settings, defaults: defaults)
    }
}

extension Components.Schemas.PasswordPolicy {
    /// The settings exchange's form of `policy`, every key given. A lock timeout is sent
    /// in whole seconds; the lockout delays are the device's own and are not sent.
    public init(_ policy: PasscodePolicy, enabled: Bool = true) {
        self.init(settings: policy.settings, enabled: enabled)
    }

    /// Values that give `settings` (by settings key) and, unless `nil`, whether a passcode
    /// is required. The generated type reads them by the document's own keys, the
    /// settings keys of GangwayPolicy's field table (a test holds every field to the
    /// document, so none is lost here).
    public init(settings: [String: PasscodePolicy.SettingValue], enabled: Bool?) {
        var object = settings.mapValues(WireScalar.init)
        object[PasscodePolicy.SettingsKey.enabled] = enabled.map(WireScalar.flag)
        let known = object.filter { Self.documentKeys.contains($0.key) }
        self = (try? JSONDecoder().decode(Self.self, from: JSONEncoder().encode(known))) ?? Self()
    }

    /// The settings these values give, by settings key (without
    /// `passwordPolicyEnabled`); keys left out are not in it.
    public var settings: [String: PasscodePolicy.SettingValue] {
        var settings = scalars.compactMapValues(\.setting)
        settings[PasscodePolicy.SettingsKey.enabled] = nil
        return settings
    }

    /// These values with what `update` gives laid over them.
    public func merging(_ update: Self) -> Self {
        let merged = scalars.merging(update.scalars) { _, new in new }
        return (try? JSONDecoder().decode(Self.self, from: JSONEncoder().encode(merged))) ?? self
    }

    /// Whether the app requires a passcode: a policy that leaves the key out does.
    public var isEnabled: Bool { passwordPolicyEnabled ?? true }

    /// The policy these values describe, or `nil` when they turn the passcode off.
    /// - Throws: ``GangwayPolicy/PasscodePolicyError`` naming the settings key at fault.
    public func policy(defaults: PasscodePolicy = .standard) throws(PasscodePolicyError) -> PasscodePolicy? {
        isEnabled ? try PasscodePolicy(self, defaults: defaults) : nil
    }

    /// The keys the document gives a password policy: every field's and
    /// `passwordPolicyEnabled`.
    static let documentKeys = Set(PasscodePolicy.fields.map(\.key) + [PasscodePolicy.SettingsKey.enabled])

    /// The values given, by key, as the generated type writes them.
    private var scalars: [String: WireScalar] {
        guard let data = try? JSONEncoder().encode(self),
            let object = try? JSONDecoder().decode([String: WireScalar?].self, from: data)
        else { return [:] }
        return object.compactMapValues { $0 }
    }
}

/// A password policy value on the wire: a whole number or a flag.
private enum WireScalar: Codable, Hashable {
    case number(Int)
    case flag(Bool)

    init(_ value: PasscodePolicy.SettingValue) {
        switch value {
        case .number(let number): self = .number(number)
        case .flag(let flag): self = .flag(flag)
        }
    }

    var setting: PasscodePolicy.SettingValue {
        switch self {
        case .number(let number): .number(number)
        case .flag(let flag): .flag(flag)
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .flag(flag)
        } else {
            self = .number(try container.decode(Int.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .flag(let flag): try container.encode(flag)
        }
    }
}
