import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import {
  type ReceivedRequest,
  type ScriptedServer,
  startScriptedServer,
} from '../../support/scripted-server.ts';

/**
 * AWS KMS as its API answers (JSON 1.1 protocol: `X-Amz-Target: TrentService.<Operation>`) for one
 * ECC_NIST_P256 signing key: GetPublicKey returns the DER SubjectPublicKeyInfo, Sign (RAW,
 * ECDSA_SHA_256) a DER signature, both base64 in JSON as the service sends blobs. Requests are kept.
 */
export interface KmsStandIn extends ScriptedServer<Record<string, unknown>> {
  publicKey: KeyObject;
}

const JSON_11 = { 'content-type': 'application/x-amz-json-1.1' };

export async function startKmsStandIn(): Promise<KmsStandIn> {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const privateKey = createPrivateKey(pair.privateKey.export({ format: 'pem', type: 'pkcs8' }));
  const server = await startScriptedServer((request: ReceivedRequest) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const keyId = String(request.body?.KeyId ?? '');
    if (target === 'TrentService.GetPublicKey') {
      return {
        status: 200,
        headers: JSON_11,
        body: {
          KeyId: keyId,
          KeySpec: 'ECC_NIST_P256',
          KeyUsage: 'SIGN_VERIFY',
          SigningAlgorithms: ['ECDSA_SHA_256'],
          PublicKey: pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
        },
      };
    }
    if (target === 'TrentService.Sign' && request.body?.MessageType === 'RAW') {
      const message = Buffer.from(String(request.body.Message), 'base64');
      return {
        status: 200,
        headers: JSON_11,
        body: {
          KeyId: keyId,
          SigningAlgorithm: 'ECDSA_SHA_256',
          Signature: sign('sha256', message, privateKey).toString('base64'),
        },
      };
    }
    return {
      status: 400,
      headers: JSON_11,
      body: { __type: 'UnsupportedOperationException', message: `Not answered here: ${target}` },
    };
  });
  return Object.assign(server, { publicKey: pair.publicKey });
}
