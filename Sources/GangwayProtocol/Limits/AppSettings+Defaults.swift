import GangwayPolicy

extension Components.Schemas.AppSettings {
    /// What a new app starts with: the standard passcode policy
    /// (``GangwayPolicy/PasscodePolicy/standard``: 8 characters, 10 tries, a 5-minute lock
    /// timeout, biometrics allowed, common passcodes refused), no lock or wipe for lack of
    /// contact, log upload off, and the previous user's pending changes uploaded on a
    /// shared device.
    public static let defaults = Components.Schemas.AppSettings(
        passwordPolicy: .init(PasscodePolicy.standard),
        sharedDeviceSettings: .init(
            allowUploadPendingChangesFromPreviousUser: APIDefaults.allowsUploadOfPreviousUserChanges
        ),
        blockWipingPolicy: .init(blockWipeEnabled: false, blockDisconnectedPeriod: 0, wipeDisconnectedPeriod: 0),
        logSettings: .init(
            logEnabled: false,
            logLevel: .info,
            maxEntriesPerUpload: 1000,
            uploadIntervalSeconds: LogUploadSchedule.defaultIntervalSeconds
        ),
        consentSettings: .init(),
        recoverySettings: .init(passcodeResetKeepsData: APIDefaults.passcodeResetKeepsData)
    )
}

extension Components.Schemas.BlockWipingPolicy {
    /// The days out of contact after which a device locks until its next sign-in;
    /// `nil` when it never does (the policy off, or 0 days). Devices and the server's
    /// overview read it alike.
    public var lockAfterDays: Int? {
        blockWipeEnabled == true ? blockDisconnectedPeriod.flatMap { $0 > 0 ? $0 : nil } : nil
    }

    /// The days out of contact after which a device erases its user's data; `nil` when
    /// it never does.
    public var wipeAfterDays: Int? {
        blockWipeEnabled == true ? wipeDisconnectedPeriod.flatMap { $0 > 0 ? $0 : nil } : nil
    }
}
