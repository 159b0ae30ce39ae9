package tlsutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// ErrBadCA means the CA certificate or key given to GenerateCert could not
// be parsed.
var ErrBadCA = errors.New("tlsutil: cannot parse the CA certificate or key")

// Default lifetimes, as Nomad's `tls` commands.
const (
	DefaultCADays   = 1825
	DefaultCertDays = 365
)

// PEMPair is a PEM certificate and its PEM private key.
type PEMPair struct {
	Cert []byte
	Key  []byte
}

// GenerateCA returns a self-signed ECDSA P-256 CA valid for days (0:
// DefaultCADays), named commonName ("" : "Nomad Agent CA").
func GenerateCA(commonName string, days int) (*PEMPair, error) {
	if commonName == "" {
		commonName = "Nomad Agent CA"
	}
	if days <= 0 {
		days = DefaultCADays
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tlsutil: generating CA key: %w", err)
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"nomadish"}},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.AddDate(0, 0, days),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		SubjectKeyId:          keyID(&key.PublicKey),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("tlsutil: signing CA: %w", err)
	}
	return encodePair(der, key)
}

// CertRequest says which agent certificate to make.
type CertRequest struct {
	Role   Role
	Region string // "" : "global"
	Days   int    // 0 : DefaultCertDays
	DNS    []string
	IPs    []net.IP
	CA     *PEMPair // the signing CA
}

// Names returns the DNS names and IPs a certificate for r carries: the
// role name (server.<region>.nomad), "localhost", 127.0.0.1 and ::1, then
// r.DNS and r.IPs. A cli certificate is named cli.<region>.nomad.
func (r CertRequest) Names() ([]string, []net.IP) {
	region := r.Region
	if region == "" {
		region = "global"
	}
	dns := append([]string{r.Role.Name(region), "localhost"}, r.DNS...)
	ips := append([]net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, r.IPs...)
	return dns, ips
}

// GenerateCert returns an ECDSA P-256 certificate for r signed by r.CA,
// usable for both TLS server and client authentication (agents are both).
func GenerateCert(r CertRequest) (*PEMPair, error) {
	caCert, caKey, err := parseCA(r.CA)
	if err != nil {
		return nil, err
	}
	days := r.Days
	if days <= 0 {
		days = DefaultCertDays
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tlsutil: generating key: %w", err)
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, err
	}
	dns, ips := r.Names()
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:   serial,
		Subject:        pkix.Name{CommonName: dns[0]},
		NotBefore:      now.Add(-time.Minute),
		NotAfter:       now.AddDate(0, 0, days),
		KeyUsage:       x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:    []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:       dns,
		IPAddresses:    ips,
		SubjectKeyId:   keyID(&key.PublicKey),
		AuthorityKeyId: caCert.SubjectKeyId,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("tlsutil: signing certificate: %w", err)
	}
	return encodePair(der, key)
}

func parseCA(ca *PEMPair) (*x509.Certificate, any, error) {
	if ca == nil {
		return nil, nil, ErrBadCA
	}
	cb, _ := pem.Decode(ca.Cert)
	kb, _ := pem.Decode(ca.Key)
	if cb == nil || kb == nil {
		return nil, nil, ErrBadCA
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadCA, err)
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		k8, err2 := x509.ParsePKCS8PrivateKey(kb.Bytes)
		if err2 != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrBadCA, err)
		}
		return cert, k8, nil
	}
	return cert, key, nil
}

func encodePair(der []byte, key *ecdsa.PrivateKey) (*PEMPair, error) {
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("tlsutil: encoding key: %w", err)
	}
	return &PEMPair{
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
	}, nil
}

func serialNumber() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("tlsutil: serial number: %w", err)
	}
	return n, nil
}

func keyID(pub *ecdsa.PublicKey) []byte {
	b, _ := x509.MarshalPKIXPublicKey(pub)
	sum := sha256.Sum256(b)
	return sum[:20]
}
