import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	INodeCredentialTestResult,
} from 'n8n-workflow';

/**
 * The "Test" button of the SIP Trunk Login credential. The spec shows no request that checks a SIP login
 * without changing a number, so nothing is sent: the test says whether both fields are filled in and
 * that the carrier sees the login only when SIP Update sends it.
 */
export async function sipTrunkLoginTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const username = typeof data.sipUsername === 'string' ? data.sipUsername.trim() : '';
	const password = typeof data.sipPassword === 'string' ? data.sipPassword : '';
	if (!username || !password) {
		return {
			status: 'Error',
			message: `Fill in the ${!username ? 'SIP Username' : 'SIP Password'}: SIP Update needs both.`,
		};
	}
	return {
		status: 'OK',
		message:
			'Both fields are filled in. Nothing was sent: the carrier checks the login when SIP Update attaches or changes a direction with it.',
	};
}
